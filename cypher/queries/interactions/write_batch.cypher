// Writes a batch of interactions for one user in one statement. It creates the tenant and user on
// first use, then write-locks the user node, so sequence numbers, NEXT edges and source_ref checks
// stay consistent under concurrent writers. Rows whose source_ref the user already has create
// nothing (a retried write); the others get the next sequence numbers, in order, and are chained
// with NEXT after the user's previous last interaction. Ids come from the caller; embeddings
// arrive as float32 VECTOR parameters and are stored as float lists for the vector index; a
// turn's sentence vectors (float16 bytes, for focusing a context on a query) are stored as sent;
// metadata as JSON beside the row's scope tokens (graph/scopes.py); occurred_at arrives in UTC,
// beside the offset the caller gave it in (utc_offset_s, seconds east of UTC).
// a long turn's parts (consolidation/writing/parts.py) become InteractionPart nodes it HAS_PART,
// each a span of its text with its own vector (a plain float list: no vector index holds parts, as
// indexing them cost seconds per long turn; recall/dense.cypher scans a user's parts).
// The user's lexical statistics (items and words per layer, graph/lexical.py) count the created
// rows; they start at 0 with the user, so a user from before them keeps none (null stays null).
// So does its count of long interactions (those with parts), by which recall/dense.cypher skips
// the parts of a user who has none.
// Every node written gets the user's next vector number (vector_no; u.vectors counts them, and
// u.vectors_epoch names the run of numbers): recall's vector cache reads what is new by it.
// A created turn waits for the recurrence gate: the user carries `gating` (the sweeper and the
// backlog read the users by its index; leases/release.cypher drops it once none is pending).
CYPHER 25
MERGE (t:Tenant {id: $tenant})
ON CREATE SET t.created_at = datetime()
MERGE (u:User {tenant: $tenant, id: $user_id})
ON CREATE SET u.user_id = $user_id, u.seq = 0, u.created_at = datetime(),
  u.lex_interactions = 0, u.lex_interactions_length = 0, u.lex_episodes = 0,
  u.lex_episodes_length = 0, u.lex_facts = 0, u.lex_facts_length = 0, u.long_interactions = 0
MERGE (t)-[:HAS]->(u)
SET u._lock = true
REMOVE u._lock
WITH u
OPTIONAL MATCH (known:Interaction {tenant: $tenant, user_id: $user_id})
USING INDEX SEEK known:Interaction(tenant, user_id, source_ref)  // else, on a fresh database, a scan
WHERE known.source_ref IN [r IN $rows WHERE r.source_ref IS NOT NULL | r.source_ref]
WITH u, collect(known {.source_ref, .id, .seq}) AS known
WITH u, known, [k IN known | k.source_ref] AS known_refs
WITH u, known, [r IN $rows WHERE r.source_ref IS NULL OR NOT r.source_ref IN known_refs] AS fresh
CALL (u, fresh) {
  UNWIND range(0, size(fresh) - 1) AS i
  WITH u, fresh[i] AS r, u.seq + i + 1 AS seq
  ORDER BY seq
  CREATE (n:Interaction {
    id: r.id, tenant: $tenant, user_id: $user_id, owner_key: $owner_key,
    session_id: r.session_id, speaker: r.speaker, text: r.text,
    occurred_at: datetime(r.occurred_at), utc_offset_s: r.utc_offset_s, seq: seq, consolidated: false, gate_checked: false,
    source_ref: r.source_ref, sentence_vectors: r.sentence_vectors, lex_length: r.lex_length,
    created_at: datetime(), agent_id: r.agent_id, metadata: r.metadata, scopes: r.scopes,
    vector_no: coalesce(u.vectors, 0) + 1
  })
  CREATE (u)-[:HAS]->(n)
  WITH n, r
  CALL db.create.setNodeVectorProperty(n, 'embedding', toFloatList(r.embedding))
  CALL (n, r) {
    UNWIND r.parts AS part
    CREATE (n)-[:HAS_PART]->(p:InteractionPart {
      id: part.id, tenant: $tenant, user_id: $user_id, interaction_id: n.id,
      index: part.index, start: part.start, end: part.end
    })
    SET p.embedding = toFloatList(part.embedding)
  }
  RETURN collect(n) AS created, sum(CASE WHEN size(r.parts) > 0 THEN 1 ELSE 0 END) AS long_created
}
CALL (u, created, long_created) {
  WITH u, created, long_created WHERE size(created) > 0
  FOREACH (i IN range(0, size(created) - 2) |
    FOREACH (a IN [created[i]] | FOREACH (b IN [created[i + 1]] | CREATE (a)-[:NEXT]->(b))))
  WITH u, created, long_created
  OPTIONAL MATCH (previous:Interaction {id: u.last_interaction_id})
  FOREACH (p IN CASE WHEN previous IS NULL THEN [] ELSE [previous] END |
    FOREACH (first IN [created[0]] | CREATE (p)-[:NEXT]->(first)))
  SET u.seq = u.seq + size(created), u.last_interaction_id = created[size(created) - 1].id,
      u.lex_interactions = u.lex_interactions + size(created),
      u.lex_interactions_length = u.lex_interactions_length + reduce(s = 0, n IN created | s + n.lex_length),
      u.long_interactions = u.long_interactions + long_created,
      u.vectors = coalesce(u.vectors, 0) + 1, u.vectors_epoch = coalesce(u.vectors_epoch, randomUUID()),
      u.gating = true
}
RETURN known, [n IN created | n {.id, .seq}] AS created
