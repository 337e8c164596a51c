#!/usr/bin/env bash
# Runs graphql-http's server audit (the GraphQL-over-HTTP spec's MUST, SHOULD and MAY points)
# against a running service: bench/graphql_http_audit/run.sh http://127.0.0.1:8080/graphql rmk_...
# Needs Node 18+ and the npm registry once (graphql-http and graphql go into a cache folder).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
cache="${RECMEM_AUDIT_CACHE:-$HOME/.cache/recmem/graphql-http-audit}"
mkdir -p "$cache"
if [ ! -d "$cache/node_modules/graphql-http" ]; then
  (cd "$cache" && npm init -y >/dev/null && npm install --silent graphql-http@1 graphql@16)
fi
cp "$here/audit.mjs" "$cache/audit.mjs"
exec node "$cache/audit.mjs" "$@"
