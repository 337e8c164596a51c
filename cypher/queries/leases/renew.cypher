// Heartbeat of a running consolidation pass: extends the user's lease from now, but only while
// the holder still has it (a lease that expired and was taken over, or was released, is not
// taken back). Write-locks the user first, as acquire and release do, so the three serialize.
MATCH (u:User {tenant: $tenant, id: $user_id})
SET u._lock = true
REMOVE u._lock
WITH u, u.lease_holder = $holder AS held
CALL (u, held) {
  WITH u WHERE held
  SET u.lease_until = datetime() + duration({milliseconds: $lease_ms})
}
RETURN coalesce(held, false) AS renewed
