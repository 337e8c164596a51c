CALL db.index.fulltext.queryNodes('fact_text', $lucene, {limit: $k * 4})
YIELD node, score
WHERE node.tenant = $tenant AND node.user_id = $user_id AND node.status = 'active'
RETURN node {.*, embedding: null} AS fact, score
ORDER BY score DESC
LIMIT $k
