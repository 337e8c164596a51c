// How many nodes of each label (chosen in code from the database's labels) one user owns: the
// export's header counts, read before its lines. A node of several labels counts under the first
// (in name order) that is not reserved, as nodes.cypher reads it.
// The user's nodes of one label: a branch per label the write path makes, so each reads the
// label's owner index (a dynamic label reads every node of the label); any other label, e.g. one
// added later, through the last branch.
CYPHER 25
UNWIND $labels AS wanted
CALL (wanted) {
  CALL (wanted) {
    WITH wanted AS label WHERE label = 'Interaction'
    MATCH (n:Interaction {tenant: $tenant, user_id: $user_id})
    RETURN n
    UNION ALL
    WITH wanted AS label WHERE label = 'Episode'
    MATCH (n:Episode {tenant: $tenant, user_id: $user_id})
    RETURN n
    UNION ALL
    WITH wanted AS label WHERE label = 'Fact'
    MATCH (n:Fact {tenant: $tenant, user_id: $user_id})
    RETURN n
    UNION ALL
    WITH wanted AS label WHERE label = 'ConsolidationRun'
    MATCH (n:ConsolidationRun {tenant: $tenant, user_id: $user_id})
    RETURN n
    UNION ALL
    WITH wanted AS label WHERE label = 'ConsolidationEvent'
    MATCH (n:ConsolidationEvent {tenant: $tenant, user_id: $user_id})
    WHERE n.seq IS NOT NULL // the owner and seq index
    RETURN n
    UNION ALL
    WITH wanted AS label WHERE NOT label IN ['Interaction', 'Episode', 'Fact', 'ConsolidationRun', 'ConsolidationEvent']
    MATCH (n:$(label) {tenant: $tenant, user_id: $user_id})
    RETURN n
  }
  WITH n
  WHERE n.id IS NOT NULL AND none(l IN labels(n) WHERE l < wanted AND NOT l IN $reserved)
  RETURN count(n) AS nodes
}
RETURN wanted AS label, nodes
