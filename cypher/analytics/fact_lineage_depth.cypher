// Fact lineage depth: which facts have been revised most often?
// For each fact, the length of the longest SUPERSEDES chain behind it (depth), how many earlier
// facts it replaced directly or transitively (replaced), and when its oldest ancestor became valid.
// By default only facts still standing (active or retracted) with at least one ancestor.
//
// Parameters:
//   $tenant (string, required): the tenant to read.
//   $user_id (string, default null): one user; null reads every user of the tenant.
//   $min_depth (integer, default 1): hide facts with a shorter lineage (0 lists every fact).
//   $include_superseded (boolean, default false): also list facts that were themselves replaced.
//   $limit (integer, default 50): rows returned.
MATCH (u:User {tenant: $tenant})
WHERE $user_id IS NULL OR u.id = $user_id
MATCH (u)-[:HAS]->(f:Fact)
WHERE coalesce($include_superseded, false) OR f.status <> 'superseded'
OPTIONAL MATCH lineage = (f)-[:SUPERSEDES*]->(old:Fact)
WITH u, f, coalesce(max(length(lineage)), 0) AS depth, count(DISTINCT old) AS replaced,
     min(old.valid_from) AS origin
WHERE depth >= coalesce($min_depth, 1)
RETURN u.id AS user_id, f.id AS fact_id, f.kind AS kind, f.status AS status, f.text AS text, depth,
       replaced, coalesce(origin, f.valid_from) AS lineage_from, f.valid_from AS valid_from
ORDER BY depth DESC, replaced DESC, user_id, fact_id
LIMIT coalesce($limit, 50)
