"""The read side beyond recall: nodes by id, listings, relations and the audit trail of a fact.

A facade over the graph's stores, so the API never runs Cypher or holds a repository. Lookups by
id take the caller's tenant (ids of other tenants behave as missing); listings take an owner.
Each lookup is one Neo4j round trip, which is what the API's DataLoaders batch on.
"""

from __future__ import annotations

from consolidation.stores import Stores


class MemoryAudit:
    """The graph's read stores' lookups, handed on as they are: each attribute is the store's own
    bound method (so its signature and types too), a few under the name the API knows them by."""

    def __init__(self, stores: Stores) -> None:
        self._browse = browse = stores.browse
        self._facts = stores.facts
        # The tenant: its name, and its users by id (`search` keeps ids containing it,
        # case-insensitive).
        self.tenant_name = browse.tenant_name
        self.user_page = browse.user_page
        self.user_count = browse.user_count
        # Nodes by id, tenant-scoped.
        self.users = browse.users
        self.interactions = browse.interactions
        self.episodes = browse.episodes
        self.facts = browse.facts
        self.runs = browse.runs
        # Relations, batched by the node they start from.
        self.episode_sources = browse.episode_sources
        self.episode_facts = browse.episode_facts
        self.episode_versions = browse.episode_versions
        self.fact_sources = browse.fact_sources
        self.fact_links = browse.fact_links
        self.fact_history = browse.fact_history
        self.interaction_derived = browse.interaction_derived
        self.run_links = browse.run_links
        # One user.
        self.stats = browse.user_stats
        # Fact -> episodes -> interactions, the facts around it in time, and the runs that made
        # them (model, tokens): one query, whatever the number of episodes and interactions.
        self.audit = self._facts.provenance
        self.interaction_page = browse.interaction_page
        self.episode_page = browse.episode_page
        self.fact_page = browse.fact_page
        self.run_page = browse.run_page
