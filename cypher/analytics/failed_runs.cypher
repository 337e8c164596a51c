// Failed runs: which LLM operations failed, when, and with what error?
// ConsolidationRuns whose status is not ok (timeout, unavailable, rate_limited, rejected,
// invalid_output, error), newest first. The interactions they read stay unconsolidated and are retried.
//
// Parameters:
//   $tenant (string, required): the tenant to read.
//   $user_id (string, default null): one user; null reads every user of the tenant.
//   $since (datetime, default null): only runs at or after this time.
//   $until (datetime, default null): only runs before this time.
//   $limit (integer, default 50): rows returned.
MATCH (u:User {tenant: $tenant})
WHERE $user_id IS NULL OR u.id = $user_id
MATCH (u)-[:HAS]->(r:ConsolidationRun)
WHERE r.status <> 'ok' AND ($since IS NULL OR r.at >= $since) AND ($until IS NULL OR r.at < $until)
RETURN r.at AS at, u.id AS user_id, r.op AS op, r.status AS status, r.error AS error,
       r.provider AS provider, r.model AS model, r.trigger AS trigger, r.latency_ms AS latency_ms,
       r.prompt_tokens AS prompt_tokens, r.completion_tokens AS completion_tokens, r.id AS run_id
ORDER BY at DESC, run_id
LIMIT coalesce($limit, 50)
