// Up to $batch users, after ($after_tenant, $after_user) in (tenant, user) order, holding a fact
// valid at no instant (valid_to before valid_from): what versions before the in-order replacement
// wrote when turns were consolidated out of time order (graph/backfill.py). Each is looked at once
// per migration, so the facts left as they are do not stop the loop.
MATCH (f:Fact)
WHERE f.valid_to IS NOT NULL AND f.valid_to < f.valid_from
  AND (f.tenant > $after_tenant OR (f.tenant = $after_tenant AND f.user_id > $after_user))
WITH DISTINCT f.tenant AS tenant, f.user_id AS user_id
RETURN tenant, user_id
ORDER BY tenant, user_id
LIMIT $batch
