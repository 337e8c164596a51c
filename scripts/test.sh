#!/usr/bin/env bash
# The test command: sets everything up, then runs the whole suite against a real Neo4j.
# Without RECMEM_TEST_NEO4J_URI the test session starts (and stops) a throwaway local Neo4j itself.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
exec .venv/bin/python -m pytest "$@"
