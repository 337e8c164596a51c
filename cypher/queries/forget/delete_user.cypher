// The user node itself, with its lease and counters, once everything it owned is gone; and the
// user's consolidation event log (graph/event_log.py), which names what was erased.
MATCH (u:User {tenant: $tenant, id: $user_id})
CALL (u) {
  MATCH (e:ConsolidationEvent {tenant: $tenant, user_id: $user_id})
  DETACH DELETE e
}
DETACH DELETE u
RETURN count(*) AS erased
