// Episode version churn: which topics keep being rewritten by merges?
// For each current episode: its version number, how many earlier versions it SUPERSEDES
// (transitively), when its first version became valid and since when the current one holds.
//
// Parameters:
//   $tenant (string, required): the tenant to read.
//   $user_id (string, default null): one user; null reads every user of the tenant.
//   $min_versions (integer, default 1): hide episodes with fewer versions (2 = merged at least once).
//   $limit (integer, default 50): rows returned.
MATCH (u:User {tenant: $tenant})
WHERE $user_id IS NULL OR u.id = $user_id
MATCH (u)-[:HAS]->(e:Episode {current: true})
WHERE e.version >= coalesce($min_versions, 1)
OPTIONAL MATCH (e)-[:SUPERSEDES*]->(old:Episode)
WITH u, e, count(DISTINCT old) AS merges, min(old.valid_from) AS first_version_at
RETURN u.id AS user_id, e.id AS episode_id, e.title AS title, e.version AS versions, merges,
       coalesce(first_version_at, e.valid_from) AS first_version_at, e.valid_from AS current_since
ORDER BY versions DESC, current_since DESC, episode_id
LIMIT coalesce($limit, 50)
