// The background sweeper: users with interactions still waiting for the recurrence gate and no
// live consolidation lease (never taken, released, or left to expire by a crashed holder), so
// that pending work is picked up without a new write (after a restart of Neo4j or the service,
// after a failed pass). Bounded: at most $limit users; $skip lists [tenant, user_id] pairs the
// caller already has queued or waiting for a retry. Only users carrying the `gating` hint are
// looked at (the statements that make a turn pending set it, leases/release.cypher clears it), by
// a pinned seek of its index; the gate_checked index (pinned too) answers the EXISTS, so a stale
// hint counts nothing.
MATCH (u:User)
USING INDEX SEEK u:User(gating)
WHERE u.gating = true
  AND (u.lease_holder IS NULL OR u.lease_until < datetime())
  AND NOT [u.tenant, u.id] IN $skip
  AND EXISTS {
    MATCH (n:Interaction {tenant: u.tenant, user_id: u.id})
    USING INDEX SEEK n:Interaction(tenant, user_id, gate_checked)
    WHERE n.gate_checked = false
  }
RETURN u.tenant AS tenant, u.id AS user_id
LIMIT $limit
