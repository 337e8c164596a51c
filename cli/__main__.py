"""`python -m cli ...`: the `recmem` command, for an interpreter whose scripts are not on PATH."""

from cli.main import app

if __name__ == "__main__":
    app(prog_name="recmem")
