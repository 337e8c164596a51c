"""Whether a Neo4j server answers at the configured URI: asked before the service starts one."""

from __future__ import annotations

from neo4j import GraphDatabase
from neo4j.exceptions import AuthError, ServiceUnavailable

from graph.settings import Neo4jSettings

PROBE_TIMEOUT_S = 3.0


def reachable(settings: Neo4jSettings, timeout_s: float = PROBE_TIMEOUT_S) -> bool:
    """True when a server answers, even one that refuses the credentials (someone is there; the
    service reports the credentials itself); False when nothing does. A blocking call: it runs
    before any event loop does."""
    password = settings.resolved_password()
    auth = (settings.user, password) if password is not None else None
    try:
        with GraphDatabase.driver(settings.uri, auth=auth, connection_timeout=timeout_s) as driver:
            driver.verify_connectivity()
    except AuthError:
        return True
    except (ServiceUnavailable, OSError):
        return False
    return True
