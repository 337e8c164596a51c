// Recurrence rate: what share of each user's interactions was consolidated, at what cost?
// The share of interactions that recurred enough to be consolidated, and what building memory cost
// per consolidated interaction.
// construction_* count the create_episode, merge_episode and refine_facts runs (failed ones too,
// since they were paid for); answer runs are a read cost and are left out.
//
// Parameters:
//   $tenant (string, required): the tenant to read.
//   $user_id (string, default null): one user; null reads every user of the tenant.
MATCH (u:User {tenant: $tenant})
WHERE $user_id IS NULL OR u.id = $user_id
CALL (u) {
  MATCH (u)-[:HAS]->(i:Interaction)
  RETURN count(i) AS interactions, count(CASE WHEN i.consolidated THEN 1 END) AS consolidated
}
CALL (u) {
  MATCH (u)-[:HAS]->(r:ConsolidationRun)
  WHERE r.op IN ['create_episode', 'merge_episode', 'refine_facts']
  RETURN count(r) AS construction_calls,
         coalesce(sum(r.prompt_tokens + r.completion_tokens), 0) AS construction_tokens
}
RETURN u.id AS user_id, interactions, consolidated,
       CASE WHEN interactions = 0 THEN null ELSE round(toFloat(consolidated) / interactions, 4) END
         AS consolidated_share,
       construction_calls, construction_tokens,
       CASE WHEN consolidated = 0 THEN null ELSE round(toFloat(construction_tokens) / consolidated, 2) END
         AS tokens_per_consolidated
ORDER BY user_id
