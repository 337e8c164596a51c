// A page of one user's nodes of one label (chosen in code), in id order after `$after`, with every
// property but those named in `$excluded` (vectors, and what an import derives from its owner).
// A node of several labels is read under the first (in name order) that is not `$reserved`.
// The user's nodes of one label: a branch per label the write path makes, so each reads the
// label's owner index (a dynamic label reads every node of the label); any other label, e.g. one
// added later, through the last branch.
CYPHER 25
CALL () {
  WITH $label AS label WHERE label = 'Interaction'
  MATCH (n:Interaction {tenant: $tenant, user_id: $user_id})
  RETURN n
  UNION ALL
  WITH $label AS label WHERE label = 'Episode'
  MATCH (n:Episode {tenant: $tenant, user_id: $user_id})
  RETURN n
  UNION ALL
  WITH $label AS label WHERE label = 'Fact'
  MATCH (n:Fact {tenant: $tenant, user_id: $user_id})
  RETURN n
  UNION ALL
  WITH $label AS label WHERE label = 'ConsolidationRun'
  MATCH (n:ConsolidationRun {tenant: $tenant, user_id: $user_id})
  RETURN n
  UNION ALL
  WITH $label AS label WHERE label = 'ConsolidationEvent'
  MATCH (n:ConsolidationEvent {tenant: $tenant, user_id: $user_id})
  WHERE n.seq IS NOT NULL // the owner and seq index
  RETURN n
  UNION ALL
  WITH $label AS label WHERE NOT label IN ['Interaction', 'Episode', 'Fact', 'ConsolidationRun', 'ConsolidationEvent']
  MATCH (n:$(label) {tenant: $tenant, user_id: $user_id})
  RETURN n
}
WITH n
WHERE n.id > $after AND none(l IN labels(n) WHERE l < $label AND NOT l IN $reserved)
RETURN n.id AS id, elementId(n) AS element_id, labels(n) AS labels,
       [k IN keys(n) WHERE NOT k IN $excluded | [k, n[k]]] AS properties,
       // From the node (one incoming HAS at most), not from the user (all of its HAS edges).
       size([(n)<-[:HAS]-(u:User) WHERE u.tenant = $tenant AND u.id = $user_id | u]) > 0 AS held
ORDER BY n.id
LIMIT $limit
