// The lexical parity check (bench/lexical_parity.py): Lucene's own scores for one user's query,
// from the interaction index (statistics over every tenant's text).
CALL db.index.fulltext.queryNodes('interaction_text', $lucene) YIELD node, score
WHERE node.tenant = $tenant AND node.user_id = $user_id
RETURN node.id AS id, score
