// A page of one user's nodes of one label (chosen in code), in id order after `$after`, with every
// property but those named in `$excluded` (vectors, and what an import derives from its owner).
// A node of several labels is read under the first (in name order) that is not `$reserved`.
CYPHER 25
MATCH (n:$($label) {tenant: $tenant, user_id: $user_id})
WHERE n.id > $after AND none(l IN labels(n) WHERE l < $label AND NOT l IN $reserved)
RETURN n.id AS id, labels(n) AS labels,
       [k IN keys(n) WHERE NOT k IN $excluded | [k, n[k]]] AS properties,
       EXISTS { MATCH (:User {tenant: $tenant, id: $user_id})-[:HAS]->(n) } AS held
ORDER BY n.id
LIMIT $limit
