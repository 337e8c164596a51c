// Per-user full-text search: the Lucene query itself is restricted to the owner's key.
CALL db.index.fulltext.queryNodes('interaction_text', $lucene, {limit: $k * 4})
YIELD node, score
WHERE node.tenant = $tenant AND node.user_id = $user_id
  AND ($include_consolidated OR node.consolidated = false)
RETURN node {.*, embedding: null} AS interaction, score
ORDER BY score DESC
LIMIT $k
