// Ends a consolidation pass: marks the interactions the gate found no recurrence for (they stay
// unconsolidated and are not gated again), gives the lease back (only if we still hold it) and
// says whether interactions are still waiting for the gate, so the caller can look again without
// another round trip. When none is, the user's `gating` hint is cleared (false: write_batch.cypher
// and the other statements that make a turn pending set it true), so the sweeper stops looking at
// the user.
// The user is write-locked first, as every writer of this user's interactions does (a write
// locks the user, then chains NEXT from its last interaction): one lock order, no deadlock.
MATCH (u:User {tenant: $tenant, id: $user_id})
SET u._lock = true
REMOVE u._lock
WITH u
CALL (u) {
  UNWIND $checked AS id
  MATCH (n:Interaction {id: id})
  USING INDEX SEEK n:Interaction(id)
  WHERE n.tenant = $tenant AND n.user_id = $user_id
  SET n.gate_checked = true
}
CALL (u) {
  WITH u WHERE u.lease_holder = $holder
  REMOVE u.lease_holder, u.lease_until
}
WITH u, EXISTS {
  MATCH (n:Interaction {tenant: $tenant, user_id: $user_id})
  USING INDEX SEEK n:Interaction(tenant, user_id, gate_checked)
  WHERE n.gate_checked = false
} AS pending
CALL (u, pending) {
  WITH u WHERE NOT pending AND coalesce(u.gating, true)
  SET u.gating = false
}
RETURN pending
