#!/usr/bin/env bash
# Fails when a commit after BASE (the last commit before issue #26) has a subject longer than 72
# characters. The history must be complete (a local or full clone): a shallow clone that lacks
# BASE fails with a message instead of passing.
set -euo pipefail
cd "$(dirname "$0")/.."
BASE=add289e
MAX=72

if ! git cat-file -e "$BASE^{commit}" 2>/dev/null; then
  echo "check_commits: base commit $BASE is not in this clone's history (shallow clone?)" >&2
  exit 2
fi
if ! git merge-base --is-ancestor "$BASE" HEAD; then
  echo "check_commits: $BASE is not an ancestor of HEAD" >&2
  exit 2
fi

status=0
while IFS= read -r line; do
  hash=${line%% *}
  subject=${line#* }
  length=$(printf '%s' "$subject" | wc -m)
  if (( length > MAX )); then
    echo "check_commits: $hash has a subject of $length characters (at most $MAX): $subject" >&2
    status=1
  fi
done < <(git log --format='%h %s' "$BASE..HEAD")
if (( status == 0 )); then
  echo "check_commits: every subject after $BASE is at most $MAX characters"
fi
exit "$status"
