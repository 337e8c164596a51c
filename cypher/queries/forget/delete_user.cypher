// The user node itself, with its lease and counters, once everything it owned is gone; and the
// user's consolidation event log (graph/event_log.py), which names what was erased. Every event
// has a seq (events/append.cypher): saying so finds them by the (tenant, user_id, seq) index. Both
// reads are pinned seeks: a plan made on a near-empty database scans every tenant's entries.
MATCH (u:User {tenant: $tenant, id: $user_id})
USING INDEX SEEK u:User(tenant, id)
CALL (u) {
  MATCH (e:ConsolidationEvent {tenant: $tenant, user_id: $user_id})
  USING INDEX SEEK e:ConsolidationEvent(tenant, user_id, seq)
  WHERE e.seq IS NOT NULL
  DETACH DELETE e
}
DETACH DELETE u
RETURN count(*) AS erased
