// Writes imported nodes by id (MERGE: a rerun rewrites the same nodes): every property replaced
// by the file's (owner fields included, from the import's target), any further label added, the
// vector made by the running embedder (a long turn's parts too), and the user's ownership edge
// where the export had one.
// Creates the tenant and the user as the write path does, and like it marks the user `gating`
// when a turn written still waits for the recurrence gate, and `awaiting` when one waits for an
// episode's batch merge (waiting/mark.cypher), the hints by which the sweepers, the backlogs and
// the batch merge find those turns. Returns each node's element id, by which write_edges.cypher
// finds it.
// A branch per label the write path makes, so each finds the id through the label's unique index
// (a dynamic label reads every node of the label); any other label through the last branch.
CYPHER 25
MERGE (t:Tenant {id: $tenant})
ON CREATE SET t.created_at = datetime()
MERGE (u:User {tenant: $tenant, id: $user_id})
ON CREATE SET u.user_id = $user_id, u.seq = 0, u.created_at = datetime()
MERGE (t)-[:HAS]->(u)
WITH u
CALL (u) {
  WITH u WHERE any(r IN $rows WHERE r.label = 'Interaction' AND r.properties.gate_checked = false)
  SET u.gating = true
}
CALL (u) {
  WITH u WHERE any(r IN $rows WHERE r.label = 'Interaction' AND r.properties.awaits IS NOT NULL
                   AND r.properties.consolidated = false)
  SET u.awaiting = true
}
UNWIND $rows AS r
CALL (r) {
  WITH r WHERE r.label = 'Interaction'
  MERGE (n:Interaction {id: r.id})
  RETURN n
  UNION ALL
  WITH r WHERE r.label = 'Episode'
  MERGE (n:Episode {id: r.id})
  RETURN n
  UNION ALL
  WITH r WHERE r.label = 'Fact'
  MERGE (n:Fact {id: r.id})
  RETURN n
  UNION ALL
  WITH r WHERE r.label = 'ConsolidationRun'
  MERGE (n:ConsolidationRun {id: r.id})
  RETURN n
  UNION ALL
  WITH r WHERE r.label = 'ConsolidationEvent'
  // An event is its user's by seq (no index on its id): the one this write would be.
  MERGE (n:ConsolidationEvent {tenant: $tenant, user_id: $user_id, seq: r.seq})
  RETURN n
  UNION ALL
  WITH r WHERE NOT r.label IN ['Interaction', 'Episode', 'Fact', 'ConsolidationRun', 'ConsolidationEvent']
  MERGE (n:$(r.label) {id: r.id})
  RETURN n
}
SET n = r.properties
SET n:$(r.labels)
WITH u, n, r
CALL (u, n, r) {
  WITH u, n, r WHERE r.held
  MERGE (u)-[:HAS]->(n)
}
CALL (n, r) {
  WITH n, r WHERE r.embedding IS NOT NULL
  CALL db.create.setNodeVectorProperty(n, 'embedding', toFloatList(r.embedding))
}
// A long turn's parts, made again from its text (a rerun replaces them; reembed does the same).
CALL (n, r) {
  WITH n, r WHERE r.label = 'Interaction'
  OPTIONAL MATCH (n)-[:HAS_PART]->(old:InteractionPart)
  DETACH DELETE old
}
CALL (n, r) {
  UNWIND r.parts AS part
  CREATE (n)-[:HAS_PART]->(p:InteractionPart {
    id: n.id + '_p' + toString(part.index), tenant: n.tenant, user_id: n.user_id,
    interaction_id: n.id, index: part.index, start: part.start, end: part.end
  })
  SET p.embedding = toFloatList(part.embedding)
}
RETURN collect([n.id, elementId(n)]) AS written
