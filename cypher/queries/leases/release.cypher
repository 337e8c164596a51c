// Gives the lease back (only if we still hold it) and says whether interactions are still waiting
// for the gate, so the caller can look again without another round trip.
MATCH (u:User {tenant: $tenant, id: $user_id})
CALL (u) {
  WITH u WHERE u.lease_holder = $holder
  REMOVE u.lease_holder, u.lease_until
}
RETURN EXISTS {
  MATCH (n:Interaction {tenant: $tenant, user_id: $user_id}) WHERE n.gate_checked = false
} AS pending
