#!/usr/bin/env bash
# Checks that the committed explorer build (api/explorer/dist) is what a fresh `npm ci && npm run
# build` of this tree produces, byte for byte. The build's codegen types the operations from
# ../api/schema.graphql and its type check fails when the schema no longer fits them.
# Exit 1 with a message when they are stale: rebuild with `npm --prefix ui ci && npm --prefix ui run build`.
set -euo pipefail
cd "$(dirname "$0")"
started=$(date +%s)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

npm ci --no-audit --no-fund --loglevel=error
# Codegen and the type check run as in a normal build; the bundle goes to the temp dir so that the
# committed one stays as it is.
npm run --silent build -- --outDir "$work/dist" --emptyOutDir --logLevel warn

if ! diff -r "$work/dist" ../api/explorer/dist; then
  echo "ui/check.sh: api/explorer/dist is stale (differs from a fresh build, above)." >&2
  echo "ui/check.sh: rebuild with: npm --prefix ui ci && npm --prefix ui run build" >&2
  exit 1
fi
echo "ui/check.sh: explorer build is current ($(( $(date +%s) - started ))s)"
