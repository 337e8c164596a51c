// What became of each of the user's interactions $ids in consolidation: whether the gate has
// looked at it yet, the episode it waits for (a batch merge), and, once an episode absorbed it,
// the latest logged event naming it (the commit that absorbed it; the user's events are read
// newest first through their (tenant, user_id, seq) index). `episode_id` / `previous_episode_id`:
// the earliest episode version derived from it and the version that one replaced, for a commit
// that logged no event. The interaction's state is read first and the rest only for it: a commit
// landing while this runs (reads see committed data as they go) then shows whole or not at all.
MATCH (n:Interaction {tenant: $tenant, user_id: $user_id})
WHERE n.id IN $ids
WITH n, n {.id, .gate_checked, .consolidated, .awaits} AS state
CALL (state) {
  OPTIONAL MATCH (e:ConsolidationEvent {tenant: $tenant, user_id: $user_id})
  WHERE state.consolidated = true AND e.seq > 0 AND state.id IN e.consolidated_ids
  WITH e
  ORDER BY e.seq DESC
  LIMIT 1
  RETURN e {
    .seq, .origin, .trigger_id, .action, .episode_id, .previous_episode_id, .fact_ids,
    .superseded_fact_ids, .consolidated_ids, .llm_calls
  } AS event
}
CALL (n, state) {
  OPTIONAL MATCH (ep:Episode)-[:DERIVED_FROM]->(n)
  WHERE state.consolidated = true AND ep.tenant = $tenant AND ep.user_id = $user_id
  WITH ep
  ORDER BY ep.created_at, ep.version
  LIMIT 1
  OPTIONAL MATCH (ep)-[:SUPERSEDES]->(old:Episode)
  RETURN ep.id AS episode_id, old.id AS previous_episode_id
}
RETURN state.id AS id, coalesce(state.gate_checked, false) AS checked,
       coalesce(state.consolidated, false) AS consolidated, state.awaits AS awaits, event,
       episode_id, previous_episode_id
