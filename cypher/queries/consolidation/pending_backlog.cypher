// The backlog behind `/metrics` and `/readyz`: how many interactions are still waiting for the
// recurrence gate, over the whole database, how many users they belong to, and how long ago the
// oldest of them was written (seconds, by Neo4j's clock; 0 when none). No tenant or user id
// leaves the database. Only users carrying the `gating` hint are looked at, by a pinned seek of
// its index (as the sweeper's pending_users does), one gate_checked index seek each (a stale hint
// counts nothing). Bounded: at most $max_users of them; `partial` says the limit was reached.
MATCH (u:User)
USING INDEX SEEK u:User(gating)
WHERE u.gating = true
WITH u LIMIT $max_users
CALL (u) {
  OPTIONAL MATCH (n:Interaction {tenant: u.tenant, user_id: u.id})
  USING INDEX SEEK n:Interaction(tenant, user_id, gate_checked)
  WHERE n.gate_checked = false
  RETURN count(n) AS pending, min(n.created_at) AS oldest
}
WITH count(u) AS users, sum(pending) AS pending, count(CASE WHEN pending > 0 THEN 1 END) AS waiting,
     min(oldest) AS oldest
WITH users, pending, waiting,
     CASE WHEN oldest IS NULL THEN null ELSE duration.inSeconds(oldest, datetime()) END AS age
RETURN pending, waiting AS users,
       CASE WHEN age IS NULL THEN 0.0 ELSE toFloat(age.seconds) + age.nanosecondsOfSecond / 1e9 END
         AS oldest_age_s,
       users >= $max_users AS partial
