// Turns waiting for a batch merge into an episode version being erased go through the recurrence
// gate again (they find the version that becomes current, or another), instead of waiting for an
// episode that no longer exists. A forgotten waiting turn itself needs nothing: it is erased.
// Released turns are pending again: their user carries `gating`, so the sweeper finds them.
// By a seek of the index of waiting turns, pinned: on some databases' statistics the planner took
// the owner index and read every turn of the user, or scanned every tenant's waiting turns.
MATCH (n:Interaction {tenant: $tenant, user_id: $user_id})
USING INDEX SEEK n:Interaction(tenant, user_id, awaits)
WHERE n.awaits IN $episode_ids AND n.consolidated = false
SET n.gate_checked = false
REMOVE n.awaits, n.awaits_similarity
WITH count(n) AS released
CALL (released) {
  WITH released WHERE released > 0
  MATCH (u:User {tenant: $tenant, id: $user_id})
  SET u.gating = true
}
RETURN released
