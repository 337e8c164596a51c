// Preference-shift timelines: how did what we know about a user change, and why?
// One row per fact along each SUPERSEDES chain, oldest (step 0) to newest, with its validity and
// the reason and time of the shift that replaced the previous step (null on step 0). A chain is
// named after its oldest fact: each fact is superseded at most once (only active facts can be),
// so the path from an oldest fact to the newest is unique.
//
// Parameters:
//   $tenant (string, required): the tenant to read.
//   $user_id (string, default null): one user; null reads every user of the tenant.
//   $kind (string, default null): only chains whose newest fact has this kind (e.g. preference).
MATCH (u:User {tenant: $tenant})
WHERE $user_id IS NULL OR u.id = $user_id
MATCH (u)-[:HAS]->(oldest:Fact)
WHERE NOT (oldest)-[:SUPERSEDES]->(:Fact) AND (:Fact)-[:SUPERSEDES]->(oldest)
MATCH chain = (newest:Fact)-[:SUPERSEDES*]->(oldest)
WHERE NOT (:Fact)-[:SUPERSEDES]->(newest) AND ($kind IS NULL OR newest.kind = $kind)
// Paths run newest -> oldest; reversed, shifts[k - 1] is the edge by which facts[k] replaced facts[k - 1].
WITH u, oldest, reverse(nodes(chain)) AS facts, reverse(relationships(chain)) AS shifts
UNWIND range(0, size(facts) - 1) AS step
WITH u, oldest, step, facts[step] AS f, CASE WHEN step = 0 THEN null ELSE shifts[step - 1] END AS shift
RETURN u.id AS user_id, oldest.id AS chain, step, f.id AS fact_id, f.kind AS kind, f.text AS text,
       f.status AS status, f.valid_from AS valid_from, f.valid_to AS valid_to,
       shift.reason AS reason, shift.at AS shifted_at
ORDER BY user_id, oldest.valid_from, chain, step
