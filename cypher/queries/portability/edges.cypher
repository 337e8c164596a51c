// The edges from a page of a user's nodes (by the element ids nodes.cypher returned) to other
// nodes of the same user, one per type and pair, with their properties. The user node's ownership
// edges are not among them (nodes.cypher reports them as `held`), nor edges to a reserved label's
// nodes (a long turn's parts: an import makes them again).
CYPHER 25
UNWIND $element_ids AS element_id
MATCH (a)
WHERE elementId(a) = element_id AND a.tenant = $tenant AND a.user_id = $user_id
MATCH (a)-[r]->(b)
WHERE b.tenant = $tenant AND b.user_id = $user_id AND b.id IS NOT NULL
  AND none(l IN labels(b) WHERE l IN $reserved)
WITH type(r) AS type, a.id AS source, b.id AS target, collect(properties(r)) AS found
RETURN type, source, target, found[0] AS properties
ORDER BY type, source, target
