#!/usr/bin/env bash
# The run command: sets everything up, starts the local Neo4j if it is not running, migrates the
# schema and serves GraphQL (the GraphiQL URL is printed). Extra arguments go to `recmem serve`.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
exec .venv/bin/recmem serve "$@"
