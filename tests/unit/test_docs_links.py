"""Every relative link and #anchor in README.md, CONTRIBUTING.md and docs/**/*.md resolves.

A link's file must exist; an anchor must be a heading slug (as GitHub makes them) or an HTML id
of the file it points at. Absolute http(s) and mailto links are not checked.
"""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path
from urllib.parse import unquote

ROOT = Path(__file__).resolve().parents[2]

_FENCE = re.compile(r"^\s*(```|~~~)")
_INLINE_CODE = re.compile(r"(`+)(.+?)\1")
_LINK = re.compile(r"!?\[(?:[^\[\]]|\[[^\]]*\])*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
_REFERENCE = re.compile(r"^\s{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s|$)")
_HEADING = re.compile(r"^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$")
_HTML_ID = re.compile(r"<a\s[^>]*(?:id|name)=\"([^\"]+)\"")
_EXTERNAL = re.compile(r"^[a-z][a-z0-9+.-]*:", re.IGNORECASE)


def documents(root: Path) -> list[Path]:
    """The Markdown files whose links are checked."""
    found = [root / name for name in ("README.md", "CONTRIBUTING.md") if (root / name).exists()]
    return found + sorted((root / "docs").rglob("*.md"))


def prose_lines(text: str) -> list[str]:
    """The file's lines outside fenced code blocks."""
    lines, fenced = [], False
    for line in text.splitlines():
        if _FENCE.match(line):
            fenced = not fenced
            continue
        if not fenced:
            lines.append(line)
    return lines


def slug(heading: str) -> str:
    """GitHub's anchor for a heading: its text, lower-cased, punctuation dropped, spaces to hyphens."""
    text = _INLINE_CODE.sub(lambda m: m.group(2), heading)
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", text)  # a link's text only
    text = re.sub(r"<[^>]+>", "", text).replace("*", "")
    text = "".join(ch for ch in text.lower() if ch.isalnum() or ch in " -_")
    return text.replace(" ", "-")


def anchors(path: Path) -> set[str]:
    """Every anchor a file defines: heading slugs (repeats get -1, -2, ...) and HTML ids."""
    seen: Counter[str] = Counter()
    found: set[str] = set()
    for line in prose_lines(path.read_text(encoding="utf-8")):
        heading = _HEADING.match(line)
        if heading:
            base = slug(heading.group(2))
            found.add(base if seen[base] == 0 else f"{base}-{seen[base]}")
            seen[base] += 1
        found.update(_HTML_ID.findall(line))
    return found


def targets(path: Path) -> list[str]:
    """The link targets a file holds outside code."""
    found = []
    for line in prose_lines(path.read_text(encoding="utf-8")):
        bare = _INLINE_CODE.sub("", line)
        found += _LINK.findall(bare)
        found += _REFERENCE.findall(bare)
    return found


def broken_links(root: Path) -> list[str]:
    """`file: target (why)` for each relative link or anchor that does not resolve."""
    broken = []
    cache: dict[Path, set[str]] = {}
    for doc in documents(root):
        for target in targets(doc):
            if _EXTERNAL.match(target):
                continue
            file_part, _, fragment = target.partition("#")
            linked = (doc.parent / unquote(file_part)).resolve() if file_part else doc
            where = f"{doc.relative_to(root)}: {target}"
            if not linked.exists():
                broken.append(f"{where} (no such file)")
            elif fragment and linked.suffix == ".md":
                if linked not in cache:
                    cache[linked] = anchors(linked)
                if unquote(fragment).lower() not in cache[linked]:
                    broken.append(f"{where} (no such anchor)")
    return broken


def test_every_relative_link_and_anchor_resolves() -> None:
    assert len(documents(ROOT)) > 10, "README.md and docs/ not found"
    broken = broken_links(ROOT)
    assert not broken, "links that do not resolve:\n" + "\n".join(broken)


def test_a_broken_file_or_anchor_is_reported(tmp_path: Path) -> None:
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "a.md").write_text("# A page\n\n## Some `code` here, and more\n\ntext\n")
    (tmp_path / "README.md").write_text(
        "[ok](docs/a.md) [ok](docs/a.md#some-code-here-and-more) [web](https://example.com/x)\n"
        "[gone](docs/b.md) [no anchor](docs/a.md#nothing) `[in code](docs/c.md)`\n"
        "```\n[in a block](docs/d.md)\n```\n"
    )
    assert broken_links(tmp_path) == [
        "README.md: docs/b.md (no such file)",
        "README.md: docs/a.md#nothing (no such anchor)",
    ]


def test_slugs_follow_github() -> None:
    assert slug("Several service processes, one Neo4j (or a cluster / Aura)") == (
        "several-service-processes-one-neo4j-or-a-cluster--aura"
    )
    assert slug("`Accept` and status codes") == "accept-and-status-codes"
    assert slug("d558abe (2026-12-01)") == "d558abe-2026-12-01"
    assert slug("The `RECMEM_API_*` settings") == "the-recmem_api_-settings"
