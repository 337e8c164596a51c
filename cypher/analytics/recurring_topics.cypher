// Recurring topics: which topics does each user keep coming back to?
// Current episodes ranked by the number of interactions they were built from. A merged version
// inherits every earlier version's DERIVED_FROM edges, so counting the current version's sources
// counts the whole topic. first_at / last_at are the first and last time the topic came up (valid
// time of its source interactions); sessions is how many distinct sessions it spans.
//
// Parameters:
//   $tenant (string, required): the tenant to read.
//   $user_id (string, default null): one user; null reads every user of the tenant.
//   $min_sources (integer, default 1): hide episodes built from fewer interactions.
//   $limit (integer, default 20): rows returned.
MATCH (u:User {tenant: $tenant})
WHERE $user_id IS NULL OR u.id = $user_id
MATCH (u)-[:HAS]->(e:Episode {current: true})-[:DERIVED_FROM]->(i:Interaction)
WITH u, e, count(DISTINCT i) AS sources, count(DISTINCT i.session_id) AS sessions,
     min(i.occurred_at) AS first_at, max(i.occurred_at) AS last_at
WHERE sources >= coalesce($min_sources, 1)
RETURN u.id AS user_id, e.id AS episode_id, e.title AS title, e.version AS version,
       sources, sessions, first_at, last_at, duration.inDays(first_at, last_at).days AS span_days
ORDER BY sources DESC, last_at DESC, episode_id
LIMIT coalesce($limit, 20)
