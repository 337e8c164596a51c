// Up to $batch users from before the `gating` hint (null), after ($after_tenant, $after_user) in
// (tenant, user) order, get it (graph/backfill.py): true when they have interactions still waiting
// for the recurrence gate (erased nodes are no one's), so the sweeper and the backlog find them,
// false otherwise (known, so the next migration skips them). An ordered seek of the users' key
// from the cursor, so each batch reads on where the last one ended instead of from the first user.
// Each under the user's write lock (held to the commit) before the read, as every statement that
// makes a turn pending takes it: a turn written meanwhile is seen, or sets the hint after us.
CALL () {
  MATCH (u:User)
  WHERE u.tenant = $after_tenant AND u.id > $after_user
    AND u.gating IS NULL
  WITH u ORDER BY u.tenant, u.id LIMIT $batch
  RETURN collect(u) AS first
}
// The next tenants' only when the cursor's tenant has fewer left than a batch (else none: a
// comparison with null holds for no user).
WITH first, CASE WHEN size(first) < $batch THEN $after_tenant END AS later_than
CALL (later_than) {
  MATCH (u:User)
  WHERE u.tenant > later_than AND u.id IS NOT NULL
    AND u.gating IS NULL
  WITH u ORDER BY u.tenant, u.id LIMIT $batch
  RETURN collect(u) AS rest
}
UNWIND (first + rest)[..$batch] AS u
SET u._lock = true
REMOVE u._lock
WITH u
SET u.gating = EXISTS {
  MATCH (n:Interaction {tenant: u.tenant, user_id: u.id})
  WHERE n.gate_checked = false AND NOT n:Erased
}
RETURN count(u) AS checked, count(CASE WHEN u.gating THEN 1 END) AS marked,
       max([u.tenant, u.id]) AS last
