// Interactions never consolidated: what has memory not (yet) learned from, per user?
// Counts each user's unconsolidated interactions, split into those the recurrence gate already
// checked and found no recurrence for (gate_rejected) and those still awaiting the gate, and lists
// the oldest of them. Users with none are left out.
//
// Parameters:
//   $tenant (string, required): the tenant to read.
//   $user_id (string, default null): one user; null reads every user of the tenant.
//   $sample (integer, default 5): how many of the oldest interactions to list per user.
MATCH (u:User {tenant: $tenant})
WHERE $user_id IS NULL OR u.id = $user_id
MATCH (u)-[:HAS]->(i:Interaction {consolidated: false})
WITH u, count(i) AS unconsolidated, count(CASE WHEN i.gate_checked THEN 1 END) AS gate_rejected
// A per-user sorted subquery, so a large backlog is never collected whole.
CALL (u) {
  MATCH (u)-[:HAS]->(i:Interaction {consolidated: false})
  WITH i ORDER BY i.occurred_at, i.seq
  LIMIT coalesce($sample, 5)
  RETURN collect({id: i.id, source_ref: i.source_ref, occurred_at: i.occurred_at, text: left(i.text, 80)})
         AS oldest
}
RETURN u.id AS user_id, unconsolidated, gate_rejected, unconsolidated - gate_rejected AS awaiting_gate,
       oldest[0].occurred_at AS oldest_at, oldest
ORDER BY unconsolidated DESC, user_id
