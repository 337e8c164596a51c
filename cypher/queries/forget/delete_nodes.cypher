// Erases nodes of one label (chosen in code from a fixed set) by id, with all their edges.
CYPHER 25
UNWIND $ids AS node_id
MATCH (n:$($label) {id: node_id})
WHERE n.tenant = $tenant AND n.user_id = $user_id
WITH collect(n) AS nodes
FOREACH (n IN nodes | DETACH DELETE n)
RETURN size(nodes) AS erased
