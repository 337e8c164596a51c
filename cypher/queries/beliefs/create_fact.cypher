// A fact a person states (a correction's new fact, or one added by hand), embedded like the
// facts refinement writes; its provenance edges come from derive.cypher once its run exists, and
// its scopes: those given to a fact added by hand ($scopes), then what it replaces (supersede.cypher)
// and the interaction it rests on (derive.cypher).
MATCH (u:User {tenant: $tenant, id: $user_id})
// The user's lexical statistics count it (null stays null for a user from before them); it gets
// the user's next vector number (interactions/write_batch.cypher).
SET u.lex_facts = u.lex_facts + 1, u.lex_facts_length = u.lex_facts_length + $lex_length,
    u.vectors = coalesce(u.vectors, 0) + 1, u.vectors_epoch = coalesce(u.vectors_epoch, randomUUID())
CREATE (f:Fact {
  id: $id, tenant: $tenant, user_id: $user_id, owner_key: $owner_key,
  text: $text, kind: $kind, status: 'active', scopes: $scopes,
  valid_from: datetime($valid_from), valid_to: null, created_at: datetime(), lex_length: $lex_length,
  vector_no: u.vectors
})
CREATE (u)-[:HAS]->(f)
WITH f
CALL db.create.setNodeVectorProperty(f, 'embedding', $embedding)
RETURN f {.*, embedding: null} AS fact
