// After an import, what the write path keeps on the user node: the stream's last sequence and
// interaction (so the next remember continues the stream), the event log's last sequence, and the
// lexical statistics per layer (graph/lexical.py), from the items' own lex_length; a file from
// before those statistics leaves them null, so recall counts the items instead; and the count of
// long interactions (those with parts: the import made them again); and a new vector epoch
// (graph/vector_cache.py), as the imported nodes carry no vector numbers.
MATCH (u:User {tenant: $tenant, id: $user_id})
CALL (u) {
  OPTIONAL MATCH (i:Interaction {tenant: $tenant, user_id: $user_id})
  WITH i ORDER BY i.seq DESC LIMIT 1
  RETURN i.seq AS seq, i.id AS last_id
}
CALL (u) {
  OPTIONAL MATCH (e:ConsolidationEvent {tenant: $tenant, user_id: $user_id})
  RETURN max(e.seq) AS event_seq
}
CALL (u) {
  OPTIONAL MATCH (n:Interaction {tenant: $tenant, user_id: $user_id})
  RETURN count(n) AS interactions, sum(n.lex_length) AS interactions_length,
         count(n) = count(n.lex_length) AS interactions_known
}
CALL (u) {
  OPTIONAL MATCH (n:Episode {tenant: $tenant, user_id: $user_id})
  RETURN count(n) AS episodes, sum(n.lex_length) AS episodes_length,
         count(n) = count(n.lex_length) AS episodes_known
}
CALL (u) {
  OPTIONAL MATCH (n:Fact {tenant: $tenant, user_id: $user_id})
  RETURN count(n) AS facts, sum(n.lex_length) AS facts_length, count(n) = count(n.lex_length) AS facts_known
}
CALL (u) {
  OPTIONAL MATCH (n:Interaction {tenant: $tenant, user_id: $user_id})
  WHERE EXISTS { (n)-[:HAS_PART]->(:InteractionPart) }
  RETURN count(n) AS long_interactions
}
SET u.seq = coalesce(seq, 0), u.last_interaction_id = last_id, u.event_seq = event_seq,
    u.lex_interactions = CASE WHEN interactions_known THEN interactions END,
    u.lex_interactions_length = CASE WHEN interactions_known THEN interactions_length END,
    u.lex_episodes = CASE WHEN episodes_known THEN episodes END,
    u.lex_episodes_length = CASE WHEN episodes_known THEN episodes_length END,
    u.lex_facts = CASE WHEN facts_known THEN facts END,
    u.lex_facts_length = CASE WHEN facts_known THEN facts_length END,
    u.long_interactions = long_interactions, u.vectors_epoch = randomUUID()
RETURN u.seq AS seq, u.event_seq AS event_seq
