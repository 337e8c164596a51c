// Erases the parts of one interaction (a long turn's spans with their vectors) before it goes.
// Their index is not quantized and their filter properties never change, so they are deleted.
// The user's count of long interactions (interactions/write_batch) loses it, in the same statement.
CYPHER 25
// By the id's unique index, pinned: on a fresh database's statistics the planner took another.
MATCH (i:Interaction {tenant: $tenant, user_id: $user_id, id: $id})
USING INDEX SEEK i:Interaction(id)
MATCH (i)-[:HAS_PART]->(p:InteractionPart)
WITH collect(p) AS parts
FOREACH (p IN parts | DETACH DELETE p)
WITH parts
OPTIONAL MATCH (u:User {tenant: $tenant, id: $user_id})
FOREACH (held IN CASE WHEN size(parts) > 0 AND u IS NOT NULL THEN [u] ELSE [] END |
  SET held.long_interactions = held.long_interactions - 1)
RETURN size(parts) AS erased
