// The stored sentence vectors (float16 bytes) of some of a user's interactions, for focusing a
// token-budgeted context on its query (consolidation/recall/sentences.py). Turns of one sentence have none.
// By the id's unique index, pinned: on a fresh database's statistics the planner took another.
MATCH (n:Interaction {tenant: $tenant, user_id: $user_id})
USING INDEX SEEK n:Interaction(id)
WHERE n.id IN $ids AND n.sentence_vectors IS NOT NULL
RETURN n.id AS id, n.sentence_vectors AS vectors
