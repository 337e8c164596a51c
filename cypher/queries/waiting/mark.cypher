// A turn that would merge into a current episode waits for it instead (recurrence-gated merging):
// it is through the gate (gate_checked), stays unconsolidated (recallable as a raw turn) and names
// the episode it waits for. Only an unconsolidated turn of this owner is marked. The user carries a
// hint that it has waiting turns, so the sweeper can find quiet sessions without scanning turns.
// Returns how many turns of this owner now wait for that episode.
MATCH (u:User {tenant: $tenant, id: $user_id})
// By the id's unique index, pinned: on a fresh database's statistics the planner took another.
OPTIONAL MATCH (n:Interaction {tenant: $tenant, user_id: $user_id, id: $id})
USING INDEX SEEK n:Interaction(id)
WHERE n.consolidated = false
CALL (n) {
  WITH n WHERE n IS NOT NULL
  SET n.awaits = $episode_id, n.awaits_similarity = $similarity, n.gate_checked = true
}
SET u.awaiting = true
WITH u, count(n) AS marked
CALL (u) {
  // By the owner's waiting turns, pinned: on a small database the planner scanned the whole index.
  MATCH (w:Interaction {tenant: $tenant, user_id: $user_id})
  USING INDEX SEEK w:Interaction(tenant, user_id, awaits)
  WHERE w.awaits = $episode_id AND w.consolidated = false
  RETURN count(w) AS waiting
}
RETURN marked, waiting
