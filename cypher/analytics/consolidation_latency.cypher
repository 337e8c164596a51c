// Consolidation latency: how long do LLM (and offline) operations take?
// p50 / p90 / p99 (percentileCont: linear interpolation between ranks), mean and max of latency_ms
// per op, provider and model; offline and LLM runs are kept apart because their latencies differ
// by orders of magnitude. Failed runs are left out by default: a timeout measures the timeout.
//
// Parameters:
//   $tenant (string, required): the tenant to read.
//   $user_id (string, default null): one user; null reads every user of the tenant.
//   $since (datetime, default null): only runs at or after this time.
//   $until (datetime, default null): only runs before this time.
//   $include_failed (boolean, default false): count runs whose status is not ok as well.
MATCH (u:User {tenant: $tenant})
WHERE $user_id IS NULL OR u.id = $user_id
MATCH (u)-[:HAS]->(r:ConsolidationRun)
WHERE (coalesce($include_failed, false) OR r.status = 'ok')
  AND ($since IS NULL OR r.at >= $since) AND ($until IS NULL OR r.at < $until)
RETURN r.op AS op, r.provider AS provider, r.model AS model, count(r) AS calls,
       percentileCont(r.latency_ms, 0.5) AS p50_ms, percentileCont(r.latency_ms, 0.9) AS p90_ms,
       percentileCont(r.latency_ms, 0.99) AS p99_ms, avg(r.latency_ms) AS mean_ms, max(r.latency_ms) AS max_ms
ORDER BY op, provider, model
