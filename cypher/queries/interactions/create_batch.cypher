// Writes new interactions (ids and seq assigned by the caller under the user lock), chains them
// with NEXT after the user's previous last interaction, and advances the user's counters.
MATCH (u:User {tenant: $tenant, id: $user_id})
UNWIND $rows AS r
CREATE (n:Interaction {
  id: r.id, tenant: $tenant, user_id: $user_id, owner_key: $owner_key,
  session_id: r.session_id, speaker: r.speaker, text: r.text,
  occurred_at: datetime(r.occurred_at), seq: r.seq, consolidated: false, gate_checked: false,
  source_ref: r.source_ref, created_at: datetime()
})
CREATE (u)-[:HAS]->(n)
WITH u, n, r
CALL db.create.setNodeVectorProperty(n, 'embedding', r.embedding)
WITH u, collect(n) AS created
FOREACH (i IN range(0, size(created) - 2) |
  FOREACH (a IN [created[i]] | FOREACH (b IN [created[i + 1]] | CREATE (a)-[:NEXT]->(b))))
WITH u, created
OPTIONAL MATCH (previous:Interaction {id: $last_id})
FOREACH (p IN CASE WHEN previous IS NULL THEN [] ELSE [previous] END |
  FOREACH (first IN [created[0]] | CREATE (p)-[:NEXT]->(first)))
SET u.seq = $last_seq, u.last_interaction_id = created[size(created) - 1].id
RETURN size(created) AS created
