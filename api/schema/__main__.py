"""`python -m api.schema` writes api/schema.graphql; `--check` fails when the file is stale."""

from __future__ import annotations

import sys
from pathlib import Path

from api.schema import sdl

SDL_FILE = Path(__file__).resolve().parent.parent / "schema.graphql"


def main(argv: list[str]) -> int:
    text = sdl()
    if "--check" in argv:
        current = SDL_FILE.read_text(encoding="utf-8") if SDL_FILE.exists() else ""
        if current != text:
            print(f"{SDL_FILE} is stale: run `python -m api.schema`", file=sys.stderr)
            return 1
        return 0
    SDL_FILE.write_text(text, encoding="utf-8")
    print(f"wrote {SDL_FILE}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
