// For each node an import would write (its first label chosen in code, its id), who owns the node
// of that id now, if one exists: an id of another owner must not be overwritten.
// A branch per label the write path makes, so each finds the id through the label's unique index
// (a dynamic label reads every node of the label); any other label through the last branch.
CYPHER 25
UNWIND $nodes AS r
CALL (r) {
  WITH r WHERE r.label = 'Interaction'
  MATCH (n:Interaction {id: r.id})
  RETURN n
  UNION ALL
  WITH r WHERE r.label = 'Episode'
  MATCH (n:Episode {id: r.id})
  RETURN n
  UNION ALL
  WITH r WHERE r.label = 'Fact'
  MATCH (n:Fact {id: r.id})
  RETURN n
  UNION ALL
  WITH r WHERE r.label = 'ConsolidationRun'
  MATCH (n:ConsolidationRun {id: r.id})
  RETURN n
  UNION ALL
  WITH r WHERE r.label = 'ConsolidationEvent'
  // An event is its user's by seq (no index on its id): the one this write would be.
  MATCH (n:ConsolidationEvent {tenant: $tenant, user_id: $user_id, seq: r.seq})
  RETURN n
  UNION ALL
  WITH r WHERE NOT r.label IN ['Interaction', 'Episode', 'Fact', 'ConsolidationRun', 'ConsolidationEvent']
  MATCH (n:$(r.label) {id: r.id})
  RETURN n
}
RETURN n.id AS id, n.tenant AS tenant, n.user_id AS user_id
