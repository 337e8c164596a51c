CALL db.index.fulltext.queryNodes('episode_summary', $lucene, {limit: $k * 4})
YIELD node, score
WHERE node.tenant = $tenant AND node.user_id = $user_id AND node.current = true
RETURN node {.*, embedding: null} AS episode, score
ORDER BY score DESC
LIMIT $k
