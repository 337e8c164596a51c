// A new episode version. With a previous version it SUPERSEDES it, inherits its source edges
// (so the current version alone reaches every interaction), and the old one stops being current.
// Its scopes are the union of its sources' (docs/scopes.md#inheritance).
// Times are valid times (when the conversation said it); created_at is when memory learned it.
// The user's lexical statistics count the new version (graph/lexical.py); it gets the user's next
// vector number (interactions/write_batch.cypher).
MATCH (u:User {tenant: $tenant, id: $user_id})
SET u.vectors = coalesce(u.vectors, 0) + 1, u.vectors_epoch = coalesce(u.vectors_epoch, randomUUID())
WITH u
OPTIONAL MATCH (old:Episode {tenant: $tenant, user_id: $user_id, id: $previous_id})
CREATE (e:Episode {
  id: $id, tenant: $tenant, user_id: $user_id, owner_key: $owner_key,
  title: $title, summary: $summary, version: coalesce(old.version, 0) + 1,
  first_at: datetime($first_at), last_at: datetime($last_at),
  valid_from: datetime($valid_from), created_at: datetime(), current: true, lex_length: $lex_length,
  vector_no: u.vectors
})
CREATE (u)-[:HAS]->(e)
SET u.lex_episodes = u.lex_episodes + 1, u.lex_episodes_length = u.lex_episodes_length + $lex_length
WITH e, old
CALL db.create.setNodeVectorProperty(e, 'embedding', $embedding)
CALL (e, old) {
  WITH e, old WHERE old IS NOT NULL
  SET old.current = false, old.superseded_at = e.valid_from
  CREATE (e)-[:SUPERSEDES {run_id: $run_id, at: e.valid_from}]->(old)
  WITH e, old
  MATCH (old)-[d:DERIVED_FROM]->(i:Interaction)
  CREATE (e)-[:DERIVED_FROM {similarity: d.similarity, run_id: d.run_id}]->(i)
}
WITH e
CALL (e) {
  UNWIND $sources AS s
  MATCH (i:Interaction {tenant: $tenant, user_id: $user_id, id: s.id})
  USING INDEX SEEK i:Interaction(id)  // else, on a fresh database, every turn of the user
  WHERE NOT (e)-[:DERIVED_FROM]->(i)
  CREATE (e)-[:DERIVED_FROM {similarity: s.similarity, run_id: $run_id}]->(i)
  RETURN count(*) AS linked
}
// Its scopes: the union of every source's (graph/scopes.py), the inherited ones included.
CALL (e) {
  OPTIONAL MATCH (e)-[:DERIVED_FROM]->(i:Interaction)
  UNWIND coalesce(i.scopes, []) AS token
  WITH DISTINCT token ORDER BY token
  RETURN collect(token) AS scopes
}
SET e.scopes = scopes
RETURN linked
