// Consolidation cost: how many LLM calls and tokens did memory cost, per day and operation?
// Every ConsolidationRun (failed ones too: they were paid for) grouped by UTC day of `at`, op,
// provider and model. `failed` counts runs whose status is not ok.
//
// Parameters:
//   $tenant (string, required): the tenant to read.
//   $user_id (string, default null): one user; null reads every user of the tenant.
//   $since (datetime, default null): only runs at or after this time.
//   $until (datetime, default null): only runs before this time.
//   $op (string, default null): one op (create_episode, merge_episode, refine_facts, answer).
MATCH (u:User {tenant: $tenant})
WHERE $user_id IS NULL OR u.id = $user_id
MATCH (u)-[:HAS]->(r:ConsolidationRun)
WHERE ($since IS NULL OR r.at >= $since) AND ($until IS NULL OR r.at < $until)
  AND ($op IS NULL OR r.op = $op)
// Converting to UTC first makes a day a UTC day whatever offset a time was stored with.
WITH r, date(datetime({datetime: r.at, timezone: 'UTC'})) AS day
RETURN day, r.op AS op, r.provider AS provider, r.model AS model, count(r) AS calls,
       count(CASE WHEN r.status <> 'ok' THEN 1 END) AS failed,
       sum(r.prompt_tokens) AS prompt_tokens, sum(r.completion_tokens) AS completion_tokens,
       sum(r.prompt_tokens + r.completion_tokens) AS total_tokens
ORDER BY day, op, provider, model
