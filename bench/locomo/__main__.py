"""`python -m bench.locomo --data ... [--modes recmem,eager,raw]` (see bench/locomo/__init__.py)."""

from bench.locomo.cli import main

if __name__ == "__main__":
    raise SystemExit(main())
