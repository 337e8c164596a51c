"""Service benchmark: `recmem serve` as a real process, measured over HTTP with httpx.

Run it as `python -m bench.service ...` (its options: `python -m bench.service --help`,
bench/service/cli.py). The modules: `results` (the report's typed shapes), `process` (the service
and Neo4j processes), `client` and `load` (the HTTP load), `profile` and `floors` (the same work in
process and straight through the driver), `sweep` (concurrent writers), `analysis` (targets,
attribution, gaps) and `report` (saving, merging, the chart).

The names other benches use (bench/fuzz_graphql.py starts services the same way) are re-exported.
"""

from bench.service.analysis import TARGET_SIZE, TARGETS, floors, overheads, targets
from bench.service.process import Target, create_key, resolve_target, running_service
from bench.service.stats import percentile, summary
from bench.service.texts import Salads
from harness.serve_process import ServeProcess as Service

__all__ = [
    "TARGETS",
    "TARGET_SIZE",
    "Salads",
    "Service",
    "Target",
    "create_key",
    "floors",
    "overheads",
    "percentile",
    "resolve_target",
    "running_service",
    "summary",
    "targets",
]
