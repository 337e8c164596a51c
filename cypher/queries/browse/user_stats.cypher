// Sizes of one user's memory per layer, and what consolidation has cost so far.
MATCH (u:User {tenant: $tenant, id: $user_id})
CALL (u) {
  OPTIONAL MATCH (i:Interaction {tenant: $tenant, user_id: $user_id})
  RETURN count(i) AS interactions, count(CASE WHEN i.consolidated THEN 1 END) AS consolidated,
         // Pending as the sweeper and the backlog count it: the gate has not run on it yet.
         count(CASE WHEN i.gate_checked = false THEN 1 END) AS pending
}
CALL (u) {
  OPTIONAL MATCH (e:Episode {tenant: $tenant, user_id: $user_id})
  RETURN count(e) AS episode_versions, count(CASE WHEN e.current THEN 1 END) AS episodes
}
CALL (u) {
  OPTIONAL MATCH (f:Fact {tenant: $tenant, user_id: $user_id})
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
