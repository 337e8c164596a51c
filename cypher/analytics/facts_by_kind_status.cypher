// Facts by kind and status: what does the semantic layer hold, and how much of it was replaced?
// Fact counts per kind and status (active, superseded, retracted), with how many users hold them.
//
// Parameters:
//   $tenant (string, required): the tenant to read.
//   $user_id (string, default null): one user; null reads every user of the tenant.
MATCH (u:User {tenant: $tenant})
WHERE $user_id IS NULL OR u.id = $user_id
MATCH (u)-[:HAS]->(f:Fact)
RETURN f.kind AS kind, f.status AS status, count(f) AS facts, count(DISTINCT u) AS users
ORDER BY kind, status
