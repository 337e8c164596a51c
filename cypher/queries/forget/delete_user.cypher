// The user node itself, with its lease and counters, once everything it owned is gone; and the
// user's consolidation event log (graph/event_log.py), which names what was erased. Every event
// has a seq (events/append.cypher): saying so finds them by the (tenant, user_id, seq) index.
MATCH (u:User {tenant: $tenant, id: $user_id})
CALL (u) {
  MATCH (e:ConsolidationEvent {tenant: $tenant, user_id: $user_id})
  WHERE e.seq IS NOT NULL
  DETACH DELETE e
}
DETACH DELETE u
RETURN count(*) AS erased
