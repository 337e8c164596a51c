"""`recmem export` and `recmem import` as a user runs them, through stdout and stdin of the real
executable (docs/export.md): a user out of one tenant and into another, the same memory there,
idempotent on a rerun, and a newer file refused with exit status 2."""

from __future__ import annotations

import json
import uuid
from pathlib import Path
from typing import Any

from graph.settings import Neo4jSettings
from tests.system.test_cli import UNITS, _env_for, _jsonl, recmem


def nodes(text: str) -> list[dict[str, Any]]:
    return [line for line in map(json.loads, text.splitlines()) if line["kind"] == "node"]


def test_a_user_goes_out_of_one_tenant_and_into_another(
    neo4j_settings: Neo4jSettings, tmp_path: Path
) -> None:
    env = _env_for(neo4j_settings) | {"RECMEM_THETA_COUNT": "3", "RECMEM_THETA_SIM": "0.3"}
    source, target = f"t-{uuid.uuid4().hex[:12]}", f"t-{uuid.uuid4().hex[:12]}"
    ingested = recmem(
        "ingest",
        str(_jsonl(tmp_path / "c.jsonl", UNITS)),
        "--tenant",
        source,
        "--user",
        "ann",
        env=env,
        cwd=tmp_path,
    )
    assert ingested.returncode == 0, ingested.stderr

    out = recmem("export", "--tenant", source, "--user", "ann", env=env, cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    header = json.loads(out.stdout.splitlines()[0])
    assert header["format"] == "recmem-export" and header["counts"]["nodes"]["Interaction"] == len(UNITS)
    path = tmp_path / "ann.jsonl"
    path.write_text(out.stdout, encoding="utf-8")

    for _ in range(2):  # the second run writes the same nodes again
        imported = recmem("import", "--tenant", target, "--user", "bea", str(path), env=env, cwd=tmp_path)
        assert imported.returncode == 0, imported.stderr
        report = json.loads(imported.stdout)
        assert report["rekeyed"] is True and report["nodes"] == header["counts"]["nodes"]
    copied = recmem("export", "--tenant", target, "--user", "bea", env=env, cwd=tmp_path)
    assert copied.returncode == 0, copied.stderr
    assert json.loads(copied.stdout.splitlines()[0])["counts"] == header["counts"]
    texts = sorted(n["properties"].get("text", "") for n in nodes(out.stdout))
    assert sorted(n["properties"].get("text", "") for n in nodes(copied.stdout)) == texts
    recalled = recmem(
        "recall", "sushi", "--tenant", target, "--user", "bea", "--tokens", "200", env=env, cwd=tmp_path
    )
    assert recalled.returncode == 0 and "salmon rolls" in recalled.stdout, recalled.stderr

    newer = [dict(header, schema_version=header["schema_version"] + 1), *out.stdout.splitlines()[1:]]
    (tmp_path / "newer.jsonl").write_text(
        "\n".join(line if isinstance(line, str) else json.dumps(line) for line in newer) + "\n",
        encoding="utf-8",
    )
    refused = recmem(
        "import", "--tenant", target, "--user", "cid", str(tmp_path / "newer.jsonl"), env=env, cwd=tmp_path
    )
    assert refused.returncode == 2 and "newer than this service's" in refused.stderr
    unknown = recmem("export", "--tenant", target, "--user", "cid", env=env, cwd=tmp_path)
    assert unknown.returncode == 2 and "unknown user 'cid'" in unknown.stderr
