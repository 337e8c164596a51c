"""Recall latency of two checkouts, interleaved request by request.

Two `recmem serve` processes, one per checkout (each with PYTHONPATH set to it), on one Neo4j and
the same users: word salads loaded once by `rememberBatch`, the hashing embedder, inline mode (no
background sweeper during the measurement). Each round sends the same query to both, in
alternating order, so load on the machine falls on both alike. Prints JSON.

    python -m bench.recall_ab --old /path/to/old --new . --neo4j-uri bolt://127.0.0.1:7702 \
        --neo4j-home /tmp/nj --sizes 1000,10000 --queries 300 --warmup 50 --out /tmp/ab.json
"""

from __future__ import annotations

import argparse
import json
import tempfile
import uuid
from pathlib import Path

from bench.machine import loadavg
from bench.service.client import BUDGETS, Client
from bench.service.load import load_user
from bench.service.process import create_key, resolve_target, running_service
from bench.service.stats import summary
from bench.service.texts import Salads

CODES = ("old", "new")
# The service bench's recall without its filter argument, which add289e's schema lacks: the same
# document for both codes.
RECALL = """query Recall($userId: ID!, $query: String!, $budget: BudgetInput) {
  recall(userId: $userId, query: $query, budget: $budget) {
    semantic { score fact { id text validFrom } sources { id } }
    episodic { score episode { id title summary version } sourceIds }
    subconscious { score interaction { id text occurredAt } }
  }
}"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--old", required=True, help="checkout of the baseline code")
    parser.add_argument("--new", required=True, help="checkout of the code under test")
    parser.add_argument("--neo4j-uri", required=True)
    parser.add_argument("--neo4j-password")
    parser.add_argument("--neo4j-home", help="local Neo4j home (its password file)")
    parser.add_argument("--sizes", default="1000,10000", help="interactions of each measured user")
    parser.add_argument("--queries", type=int, default=300)
    parser.add_argument("--warmup", type=int, default=50)
    parser.add_argument("--seed", type=int, default=30)
    parser.add_argument(
        "--statement-timeout-s",
        type=float,
        help="both services' RECMEM_NEO4J_STATEMENT_TIMEOUT_S (loaded machines)",
    )
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()

    target = resolve_target(args.neo4j_uri, args.neo4j_password, args.neo4j_home)
    if target is None:
        parser.error("no Neo4j to run against")
    tenant = f"recall-ab-{uuid.uuid4().hex[:8]}"
    key = create_key(target, tenant)
    paths = {"old": str(Path(args.old).resolve()), "new": str(Path(args.new).resolve())}
    timeout = (
        {}
        if args.statement_timeout_s is None
        else {"RECMEM_NEO4J_STATEMENT_TIMEOUT_S": str(args.statement_timeout_s)}
    )
    report: dict[str, object] = {"tenant": tenant, "code": paths, "queries": args.queries, "sizes": {}}
    sizes: dict[str, object] = {}
    with (
        tempfile.TemporaryDirectory(prefix="recall-ab-") as work,
        running_service(
            target, "hashing", "inline", 1000, Path(work), extra_env={"PYTHONPATH": paths["old"], **timeout}
        ) as old,
        running_service(
            target, "hashing", "inline", 1000, Path(work), extra_env={"PYTHONPATH": paths["new"], **timeout}
        ) as new,
    ):
        clients = {"old": Client(old.base, key), "new": Client(new.base, key)}
        salads = Salads(seed=args.seed)
        for size in (int(s) for s in args.sizes.split(",")):
            user = f"recall-{size}"
            load_user(clients["new"], salads, user, size, 1000, False)
            latencies: dict[str, list[float]] = {code: [] for code in CODES}
            for i in range(args.warmup + args.queries):
                query = salads.query()
                for code in CODES if i % 2 == 0 else CODES[::-1]:
                    _, ms = clients[code].call(RECALL, {"userId": user, "query": query, "budget": BUDGETS})
                    if i >= args.warmup:
                        latencies[code].append(ms)
            old_p50, new_p50 = (summary(latencies[c])["p50_ms"] for c in CODES)
            sizes[str(size)] = {
                **{code: summary(latencies[code]) for code in CODES},
                "ratio_p50_new_over_old": round(new_p50 / old_p50, 3),
                "load_average_after": loadavg(),
            }
        for client in clients.values():
            client.close()
    report["sizes"] = sizes
    text = json.dumps(report, indent=1)
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(text + "\n")
    print(text)


if __name__ == "__main__":
    main()
