// Memory growth: how fast does each layer grow, day by day?
// Nodes added per UTC day to each layer (interaction, episode versions, fact) and the running total.
// By default days are valid time (when the conversation happened: occurred_at, valid_from); with
// $recorded_time they are when memory stored them (created_at), which shows ingestion and
// consolidation load rather than conversation history.
//
// Parameters:
//   $tenant (string, required): the tenant to read.
//   $user_id (string, default null): one user; null reads every user of the tenant.
//   $recorded_time (boolean, default false): bucket by created_at instead of valid time.
MATCH (u:User {tenant: $tenant})
WHERE $user_id IS NULL OR u.id = $user_id
CALL (u) {
  MATCH (u)-[:HAS]->(i:Interaction)
  RETURN 'interaction' AS layer, CASE WHEN coalesce($recorded_time, false) THEN i.created_at ELSE i.occurred_at END AS at
  UNION ALL
  MATCH (u)-[:HAS]->(e:Episode)
  RETURN 'episode' AS layer, CASE WHEN coalesce($recorded_time, false) THEN e.created_at ELSE e.valid_from END AS at
  UNION ALL
  MATCH (u)-[:HAS]->(f:Fact)
  RETURN 'fact' AS layer, CASE WHEN coalesce($recorded_time, false) THEN f.created_at ELSE f.valid_from END AS at
}
WITH layer, date(datetime({datetime: at, timezone: 'UTC'})) AS day, count(*) AS added
ORDER BY layer, day
// Cypher has no window functions: collect each layer's days in order and sum the prefix.
WITH layer, collect({day: day, added: added}) AS days
UNWIND range(0, size(days) - 1) AS k
RETURN days[k].day AS day, layer, days[k].added AS added,
       reduce(total = 0, d IN days[0..k + 1] | total + d.added) AS total
ORDER BY day, layer
