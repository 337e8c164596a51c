// The waiting turns behind `/metrics`: how many turns wait for their episode's batch merge over the
// whole database, and for how many users. No tenant or user id leaves the database. Bounded: at
// most $max_users users carrying the `awaiting` hint are looked at; `partial` says the limit was hit.
MATCH (u:User)
USING INDEX SEEK u:User(awaiting)
WHERE u.awaiting = true
WITH u LIMIT $max_users
CALL (u) {
  // By the index of waiting turns: by the owner index, the planner's choice, it read all the user's turns.
  OPTIONAL MATCH (n:Interaction {tenant: u.tenant, user_id: u.id})
  USING INDEX SEEK n:Interaction(tenant, user_id, awaits)
  WHERE n.awaits IS NOT NULL AND n.consolidated = false
  RETURN count(n) AS waiting
}
RETURN sum(waiting) AS waiting, count(CASE WHEN waiting > 0 THEN 1 END) AS users,
       count(u) >= $max_users AS partial
