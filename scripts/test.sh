#!/usr/bin/env bash
# The test command: sets everything up, then runs the whole suite against a real Neo4j
# (`--fast`: the unit tests alone, without Neo4j).
# Without RECMEM_TEST_NEO4J_URI the test session starts (and stops) a throwaway local Neo4j itself.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
if [ "${1:-}" = "--fast" ]; then
  # The unit tests alone (tests/unit): no Neo4j is started or used, about half a minute.
  shift
  exec .venv/bin/python -m pytest tests/unit "$@"
fi
exec .venv/bin/python -m pytest "$@"
