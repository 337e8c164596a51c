// A benchmark tenant's consolidation backlog: interactions the recurrence gate has not yet seen
// (pending) and turns waiting for their episode's batch merge (waiting).
MATCH (n:Interaction {tenant: $tenant})
RETURN count(CASE WHEN n.gate_checked = false THEN 1 END) AS pending,
       count(CASE WHEN n.awaits IS NOT NULL AND n.consolidated = false THEN 1 END) AS waiting
