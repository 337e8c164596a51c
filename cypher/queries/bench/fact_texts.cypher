// A benchmark's census of the facts it built: every fact of a tenant's users, with the speakers
// of each user's turns (what a rule that reads names needs).
//
// Parameters:
//   $tenant (string, required): the tenant to read.
MATCH (u:User {tenant: $tenant})
OPTIONAL MATCH (u)-[:HAS]->(i:Interaction)
WITH u, collect(DISTINCT i.speaker) AS speakers
MATCH (u)-[:HAS]->(f:Fact)
RETURN u.id AS user_id, speakers, f.text AS text, f.kind AS kind, f.status AS status
ORDER BY user_id, f.valid_from, f.id
