// For each node an import would write (its first label chosen in code, its id), who owns the node
// of that id now, if one exists: an id of another owner must not be overwritten.
CYPHER 25
UNWIND $nodes AS r
MATCH (n:$(r.label) {id: r.id})
RETURN n.id AS id, n.tenant AS tenant, n.user_id AS user_id
