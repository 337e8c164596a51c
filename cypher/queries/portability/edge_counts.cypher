// How many edges of each type run from one user's nodes (labels chosen in code) to other nodes of
// the same user, one per type and pair as the export writes them: the header's edge counts.
// The user's nodes of one label: a branch per label the write path makes, so each reads the
// label's owner index (a dynamic label reads every node of the label); any other label, e.g. one
// added later, through the last branch.
CYPHER 25
UNWIND $labels AS wanted
CALL (wanted) {
  CALL (wanted) {
    WITH wanted AS label WHERE label = 'Interaction'
    MATCH (a:Interaction {tenant: $tenant, user_id: $user_id})
    RETURN a
    UNION ALL
    WITH wanted AS label WHERE label = 'Episode'
    MATCH (a:Episode {tenant: $tenant, user_id: $user_id})
    RETURN a
    UNION ALL
    WITH wanted AS label WHERE label = 'Fact'
    MATCH (a:Fact {tenant: $tenant, user_id: $user_id})
    RETURN a
    UNION ALL
    WITH wanted AS label WHERE label = 'ConsolidationRun'
    MATCH (a:ConsolidationRun {tenant: $tenant, user_id: $user_id})
    RETURN a
    UNION ALL
    WITH wanted AS label WHERE label = 'ConsolidationEvent'
    MATCH (a:ConsolidationEvent {tenant: $tenant, user_id: $user_id})
    WHERE a.seq IS NOT NULL // the owner and seq index
    RETURN a
    UNION ALL
    WITH wanted AS label WHERE NOT label IN ['Interaction', 'Episode', 'Fact', 'ConsolidationRun', 'ConsolidationEvent']
    MATCH (a:$(label) {tenant: $tenant, user_id: $user_id})
    RETURN a
  }
  WITH a
  WHERE a.id IS NOT NULL AND none(l IN labels(a) WHERE l < wanted AND NOT l IN $reserved)
  MATCH (a)-[r]->(b)
  WHERE b.tenant = $tenant AND b.user_id = $user_id AND b.id IS NOT NULL
  AND none(l IN labels(b) WHERE l IN $reserved)
  WITH DISTINCT type(r) AS type, a.id AS source, b.id AS target
  RETURN type, count(*) AS edges
}
RETURN type, sum(edges) AS edges
