"""`python -m bench.service ...` (from the repository root): see bench/service/cli.py."""

from bench.service.cli import main

raise SystemExit(main())
