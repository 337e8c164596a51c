MATCH (i:Interaction {tenant: $tenant, user_id: $user_id})
WHERE i.id IN $ids
SET i.consolidated = true, i.gate_checked = true,
    i.consolidated_at = coalesce(i.consolidated_at, datetime($at))
RETURN count(i) AS marked
