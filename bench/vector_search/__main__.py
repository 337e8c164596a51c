"""`python -m bench.vector_search ...` (from the repository root): see bench/vector_search/cli.py."""

from bench.vector_search.cli import main

main()
