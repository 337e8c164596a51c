// The gate ran for these and found no recurrence: they stay unconsolidated but are not re-gated.
MATCH (n:Interaction {tenant: $tenant, user_id: $user_id})
WHERE n.id IN $ids
SET n.gate_checked = true
RETURN count(n) AS marked
