// After an import, what the write path keeps on the user node: the stream's last sequence and
// interaction (so the next remember continues the stream) and the event log's last sequence.
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
SET u.seq = coalesce(seq, 0), u.last_interaction_id = last_id, u.event_seq = event_seq
RETURN u.seq AS seq, u.event_seq AS event_seq
