// Which of these turns of this owner are waiting for an episode (the gate does not count them as
// recurring neighbours: their topic already has an episode).
MATCH (n:Interaction {tenant: $tenant, user_id: $user_id})
WHERE n.id IN $ids AND n.awaits IS NOT NULL AND n.consolidated = false
RETURN collect(n.id) AS ids
