// Turns stop waiting: the merge was refused (they stay through the gate, unconsolidated, like turns
// the gate found no recurrence for), or the episode they waited for is gone ($regate: they go
// through the gate again; their user carries `gating`, so the sweeper finds them). Only
// unconsolidated turns of this owner are touched.
UNWIND $ids AS id
MATCH (n:Interaction {id: id})
USING INDEX SEEK n:Interaction(id)  // else, on a fresh database, every turn of the owner
WHERE n.tenant = $tenant AND n.user_id = $user_id AND n.consolidated = false
SET n.gate_checked = CASE WHEN $regate THEN false ELSE n.gate_checked END
REMOVE n.awaits, n.awaits_similarity
WITH count(n) AS released
CALL (released) {
  WITH released WHERE released > 0 AND $regate
  MATCH (u:User {tenant: $tenant, id: $user_id})
  SET u.gating = true
}
RETURN released
