// Up to $batch users from before the `gating` hint (null) get it (graph/backfill.py): true when
// they have interactions still waiting for the recurrence gate (erased nodes are no one's), so the
// sweeper and the backlog find them, false otherwise (known, so the next migration skips them).
// Each under the user's write lock (held to the commit) before the read, as every statement that
// makes a turn pending takes it: a turn written meanwhile is seen, or sets the hint after us.
MATCH (u:User)
WHERE u.gating IS NULL
WITH u LIMIT $batch
SET u._lock = true
REMOVE u._lock
WITH u
SET u.gating = EXISTS {
  MATCH (n:Interaction {tenant: u.tenant, user_id: u.id})
  WHERE n.gate_checked = false AND NOT n:Erased
}
RETURN count(u) AS checked, count(CASE WHEN u.gating THEN 1 END) AS marked
