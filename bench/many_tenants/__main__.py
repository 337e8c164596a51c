"""`python -m bench.many_tenants ...` (from the repository root): see bench/many_tenants/cli.py."""

from bench.many_tenants.cli import main

main()
