// The parts of some of a user's long interactions with each part's cosine to the query, for
// showing a long turn in a context by the part that matches (consolidation/recall/long_turns.py).
CYPHER 25
MATCH (n:Interaction {tenant: $tenant, user_id: $user_id})-[:HAS_PART]->(p:InteractionPart)
WHERE n.id IN $ids
RETURN n.id AS id, p.index AS index, p.start AS start, p.end AS end,
       vector.similarity.cosine(p.embedding, $vector) AS score
ORDER BY id, index
