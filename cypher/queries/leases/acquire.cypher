// Takes the user's consolidation lease when it is free, expired, or already ours. The write lock
// (SET _lock) comes first so that two processes cannot both see the lease as free.
// `took_over`: the lease was another holder's and had expired (a crashed or stalled holder).
MATCH (u:User {tenant: $tenant, id: $user_id})
SET u._lock = true
REMOVE u._lock
WITH u, (u.lease_holder IS NULL OR u.lease_until < datetime() OR u.lease_holder = $holder) AS free,
     coalesce(u.lease_holder <> $holder AND u.lease_until < datetime(), false) AS took_over
CALL (u, free) {
  WITH u WHERE free
  SET u.lease_holder = $holder,
      u.lease_until = datetime() + duration({milliseconds: $lease_ms})
}
RETURN free AS acquired, u.lease_holder AS holder, took_over
