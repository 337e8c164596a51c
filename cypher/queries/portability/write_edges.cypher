// Writes imported edges between two nodes of the user (by the element ids write_nodes.cypher
// returned; the edge's type chosen in code from the checked file), one per type and pair (MERGE:
// a rerun rewrites the same edge).
CYPHER 25
UNWIND $rows AS r
MATCH (a)
WHERE elementId(a) = r.source AND a.tenant = $tenant AND a.user_id = $user_id
MATCH (b)
WHERE elementId(b) = r.target AND b.tenant = $tenant AND b.user_id = $user_id
MERGE (a)-[e:$(r.type)]->(b)
SET e = r.properties
RETURN count(e) AS written
