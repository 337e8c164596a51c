// Facts valid at no instant: which facts did older versions close before they began, and by what?
// Facts whose valid_to lies before their valid_from: what versions before the in-order replacement
// wrote when turns were consolidated out of time order, left as they are by migration when no rule
// decides them (chains, a person's change: docs/operations.md#upgrading). One row per fact, oldest
// first, with the SUPERSEDES edges into it (the fact that closed it, the edge's time, reason and run,
// and whether that run was a person's; null when the run is gone), so a person can correct it.
//
// Parameters:
//   $tenant (string, required): the tenant to read.
//   $user_id (string, default null): one user; null reads every user of the tenant.
//   $limit (integer, default 100): rows returned.
MATCH (f:Fact)
WHERE f.tenant = $tenant AND ($user_id IS NULL OR f.user_id = $user_id)
  AND f.valid_to IS NOT NULL AND f.valid_to < f.valid_from
WITH f
ORDER BY f.user_id, f.valid_from, f.id
LIMIT coalesce($limit, 100)
OPTIONAL MATCH (by:Fact)-[s:SUPERSEDES]->(f)
OPTIONAL MATCH (run:ConsolidationRun {id: s.run_id})
WHERE run.tenant = f.tenant AND run.user_id = f.user_id
WITH f, by, s, run
ORDER BY s.at, by.id
WITH f, collect(CASE WHEN by IS NULL THEN null ELSE {fact_id: by.id, text: by.text, at: s.at, reason: s.reason,
                                                     run_id: s.run_id, by_person: run.provider = 'person'} END) AS closed_by
RETURN f.user_id AS user_id, f.id AS fact_id, f.text AS text, f.status AS status, f.valid_from AS valid_from,
       f.valid_to AS valid_to, closed_by
ORDER BY user_id, valid_from, fact_id
