// Writes imported edges between two nodes of the user (their labels, the edge's type chosen in
// code from the checked file), one per type and pair (MERGE: a rerun rewrites the same edge).
CYPHER 25
UNWIND $rows AS r
MATCH (a:$(r.source_label) {id: r.source})
WHERE a.tenant = $tenant AND a.user_id = $user_id
MATCH (b:$(r.target_label) {id: r.target})
WHERE b.tenant = $tenant AND b.user_id = $user_id
MERGE (a)-[e:$(r.type)]->(b)
SET e = r.properties
RETURN count(e) AS written
