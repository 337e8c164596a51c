// New facts with their provenance: DERIVED_FROM the episode and the exact interactions that state
// them; SUPERSEDES closes each replaced fact's validity. Its scopes are those of the interactions
// it rests on (docs/scopes.md#inheritance). Returns the ids of the facts they replaced.
// The user's lexical statistics count them; they get the user's next vector number
// (interactions/write_batch.cypher).
MATCH (u:User {tenant: $tenant, id: $user_id})
SET u.lex_facts = u.lex_facts + size($facts),
    u.lex_facts_length = u.lex_facts_length + reduce(s = 0, r IN $facts | s + r.lex_length),
    u.vectors = coalesce(u.vectors, 0) + 1, u.vectors_epoch = coalesce(u.vectors_epoch, randomUUID())
WITH u
// By the id's unique index, pinned: on a fresh database's statistics the planner took another.
OPTIONAL MATCH (e:Episode {tenant: $tenant, user_id: $user_id, id: $episode_id})
USING INDEX SEEK e:Episode(id)
UNWIND $facts AS r
CREATE (f:Fact {
  id: r.id, tenant: $tenant, user_id: $user_id, owner_key: $owner_key,
  text: r.text, kind: r.kind, status: 'active',
  valid_from: datetime(r.valid_from), valid_to: null, created_at: datetime(), lex_length: r.lex_length,
  vector_no: u.vectors
})
CREATE (u)-[:HAS]->(f)
WITH e, f, r
CALL db.create.setNodeVectorProperty(f, 'embedding', r.embedding)
CALL (e, f) {
  WITH e, f WHERE e IS NOT NULL
  CREATE (f)-[:DERIVED_FROM {run_id: $run_id}]->(e)
}
CALL (f, r) {
  UNWIND r.source_ids AS source_id
  MATCH (i:Interaction {tenant: $tenant, user_id: $user_id, id: source_id})
  CREATE (f)-[:DERIVED_FROM {run_id: $run_id}]->(i)
}
// A replacement takes effect at the later of the two starts (docs/design/graph-model.md#replacement):
// a fact it names that began no later than it ends where it begins ...
CALL (f, r) {
  UNWIND r.supersedes AS s
  MATCH (old:Fact {tenant: $tenant, user_id: $user_id, id: s.id, status: 'active'})
  WHERE old.valid_from <= f.valid_from
  SET old.status = 'superseded', old.valid_to = f.valid_from
  CREATE (f)-[:SUPERSEDES {at: f.valid_from, reason: s.reason, run_id: $run_id}]->(old)
  RETURN collect(old.id) AS replaced
}
// ... and one that began after it (said later, consolidated first) stays current and ends it
// instead, at the earliest such start: the new fact takes its place in the history before them.
// Refinement's reason was written for the other direction: the edge's reason says the edge was
// turned and keeps it (as backfill/reorder_replacements.cypher writes it).
CALL (f, r) {
  UNWIND r.supersedes AS s
  MATCH (later:Fact {tenant: $tenant, user_id: $user_id, id: s.id, status: 'active'})
  USING INDEX SEEK later:Fact(id)  // else, on a fresh database, every fact of the user
  WHERE later.valid_from > f.valid_from
  WITH f, collect({fact: later, reason: s.reason}) AS laters, min(later.valid_from) AS ends
  SET f.status = 'superseded', f.valid_to = ends
  WITH f, laters, ends
  UNWIND laters AS l
  WITH f, ends, l.fact AS later, l.reason AS given
  WITH f, ends, later, given,
       [t IN [f.valid_from, later.valid_from, ends] | toString(datetime({datetime: t, timezone: 'Z'}))] AS utc
  WITH f, ends, later,
       'Reversed by time order: the replaced fact, said ' + utc[0]
       + ', was consolidated after the replacing fact, said ' + utc[1]
       + ', and named it as the fact it replaced; the one said first ends at ' + utc[2] + '.'
       + CASE WHEN coalesce(given, '') = '' THEN ''
         ELSE ' Reason given for the opposite direction: ' + given END AS reason
  CREATE (later)-[:SUPERSEDES {at: ends, reason: reason, run_id: $run_id}]->(f)
}
// Its scopes: the union of the exact interactions' (graph/scopes.py), else the episode's.
CALL (f, e) {
  OPTIONAL MATCH (f)-[:DERIVED_FROM]->(i:Interaction)
  WITH e, collect(i.scopes) AS direct
  UNWIND CASE WHEN size(direct) > 0 THEN direct ELSE [coalesce(e.scopes, [])] END AS held
  UNWIND held AS token
  WITH DISTINCT token ORDER BY token
  RETURN collect(token) AS scopes
}
SET f.scopes = scopes
RETURN count(f) AS created, reduce(ids = [], done IN collect(replaced) | ids + done) AS superseded
