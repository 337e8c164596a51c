#!/usr/bin/env bash
# The run command: sets everything up, starts the local Neo4j if it is not running, migrates the
# schema and serves GraphQL (the GraphiQL URL is printed). Extra arguments go to `recmem serve`.
# `exec`: Ctrl-C and SIGTERM reach `recmem serve` itself, which then stops the Neo4j it started
# (one found running is left alone).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
exec .venv/bin/recmem serve "$@"
