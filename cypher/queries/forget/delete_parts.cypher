// Erases the parts of one interaction (a long turn's spans with their vectors) before it goes.
// Their index is not quantized and their filter properties never change, so they are deleted.
CYPHER 25
MATCH (:Interaction {tenant: $tenant, user_id: $user_id, id: $id})-[:HAS_PART]->(p:InteractionPart)
WITH collect(p) AS parts
FOREACH (p IN parts | DETACH DELETE p)
RETURN size(parts) AS erased
