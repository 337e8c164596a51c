// The background sweeper: users with waiting turns whose session has ended (the newest interaction
// belongs to another session than a waiting turn, or was written more than $quiet_ms ago) and no
// live consolidation lease, so a quiet session's batch is merged without a new write. Bounded: at
// most $limit users; $skip lists [tenant, user_id] pairs the caller has queued already. Only users
// carrying the `awaiting` hint are looked at (mark.cypher sets it, settle.cypher drops it), by a
// pinned seek of its index.
MATCH (u:User)
USING INDEX SEEK u:User(awaiting)
WHERE u.awaiting = true
  AND (u.lease_holder IS NULL OR u.lease_until < datetime())
  AND NOT [u.tenant, u.id] IN $skip
// The last turn by its id (unique): by the owner index, the planner's choice, it read all the user's turns.
OPTIONAL MATCH (last:Interaction {id: u.last_interaction_id})
USING INDEX SEEK last:Interaction(id)
WHERE last.tenant = u.tenant AND last.user_id = u.id
WITH u, last
WHERE last IS NULL
   OR last.created_at < datetime() - duration({milliseconds: $quiet_ms})
   OR EXISTS {
     MATCH (n:Interaction {tenant: u.tenant, user_id: u.id})
     USING INDEX SEEK n:Interaction(tenant, user_id, awaits)
     WHERE n.awaits IS NOT NULL AND n.consolidated = false
       AND coalesce(n.session_id, '') <> coalesce(last.session_id, '')
   }
RETURN u.tenant AS tenant, u.id AS user_id
LIMIT $limit
