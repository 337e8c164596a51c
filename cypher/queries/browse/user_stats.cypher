// Sizes of one user's memory per layer, and what consolidation has cost so far.
// The $f_* parameters (a recall filter, graph/scopes.py; null: no filter) narrow the interactions,
// episodes and facts counted exactly as they narrow the listings (pages/*_forward.cypher); runs hold
// no scope, so runs and tokens stay the user's whole.
MATCH (u:User {tenant: $tenant, id: $user_id})
CALL (u) {
  OPTIONAL MATCH (i:Interaction {tenant: $tenant, user_id: $user_id})
  WHERE ($f_scopes IS NULL OR all(g IN $f_scopes WHERE any(t IN g WHERE t IN i.scopes)))
    AND ($f_since IS NULL OR i.occurred_at >= $f_since) AND ($f_until IS NULL OR i.occurred_at < $f_until)
  RETURN count(i) AS interactions, count(CASE WHEN i.consolidated THEN 1 END) AS consolidated,
         // Pending as the sweeper and the backlog count it: the gate has not run on it yet.
         count(CASE WHEN i.gate_checked = false THEN 1 END) AS pending
}
CALL (u) {
  OPTIONAL MATCH (e:Episode {tenant: $tenant, user_id: $user_id})
  WHERE ($f_scopes IS NULL OR all(g IN $f_scopes WHERE any(t IN g WHERE t IN e.scopes)))
    AND ($f_since IS NULL OR e.last_at >= $f_since) AND ($f_until IS NULL OR e.first_at < $f_until)
  RETURN count(e) AS episode_versions, count(CASE WHEN e.current THEN 1 END) AS episodes
}
CALL (u) {
  OPTIONAL MATCH (f:Fact {tenant: $tenant, user_id: $user_id})
  WHERE ($f_scopes IS NULL OR all(g IN $f_scopes WHERE any(t IN g WHERE t IN f.scopes)))
    AND ($f_kinds IS NULL OR f.kind IN $f_kinds)
    AND ($f_since IS NULL OR f.valid_from >= $f_since) AND ($f_until IS NULL OR f.valid_from < $f_until)
    AND ($f_valid_since IS NULL OR f.valid_from >= $f_valid_since)
    AND ($f_valid_until IS NULL OR f.valid_from < $f_valid_until)
  RETURN count(CASE WHEN f.status = 'active' THEN 1 END) AS active_facts,
         count(CASE WHEN f.status = 'superseded' THEN 1 END) AS superseded_facts,
         count(CASE WHEN f.status = 'retracted' THEN 1 END) AS retracted_facts
}
CALL (u) {
  OPTIONAL MATCH (r:ConsolidationRun {tenant: $tenant, user_id: $user_id})
  RETURN count(r) AS runs, coalesce(sum(r.prompt_tokens), 0) AS prompt_tokens,
         coalesce(sum(r.completion_tokens), 0) AS completion_tokens
}
RETURN interactions, consolidated, pending, episodes, episode_versions, active_facts, superseded_facts,
       retracted_facts, runs, prompt_tokens, completion_tokens
