"""What tests read straight from the graph, past the stores, to check what the stores wrote."""

from __future__ import annotations

from graph.database import Database
from graph.models import Owner

# What the write path gives a new user (interactions/write_batch.cypher): a user a test creates
# without them looks like data from before the statistics, which every later migration counts.
USER_STATISTICS = {
    "lex_interactions": 0,
    "lex_interactions_length": 0,
    "lex_episodes": 0,
    "lex_episodes_length": 0,
    "lex_facts": 0,
    "lex_facts_length": 0,
    "long_interactions": 0,
}


async def owned_count(db: Database, owner: Owner, label: str) -> int:
    """How many nodes of `label` the owner holds (erased nodes belong to nobody)."""
    rows = await db.driver.execute_query(
        "CYPHER 25 MATCH (n:$($label) {tenant: $t, user_id: $u}) RETURN count(n) AS n",
        label=label,
        t=owner.tenant,
        u=owner.user_id,
        database_=db.name,
    )
    return int(rows.records[0]["n"])
