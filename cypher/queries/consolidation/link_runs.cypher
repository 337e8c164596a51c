// READ / PRODUCED edges from runs to the nodes they touched. Labels and edge types come from a
// fixed set chosen in code (graph/consolidations.py), passed as parameters, never spliced.
CYPHER 25
UNWIND $links AS l
// By the id's unique index, pinned: on a fresh database's statistics the planner took another.
MATCH (run:ConsolidationRun {id: l.run_id})
USING INDEX SEEK run:ConsolidationRun(id)
WHERE run.tenant = $tenant AND run.user_id = $user_id
MATCH (n:$(l.label) {id: l.id})
WHERE n.tenant = $tenant AND n.user_id = $user_id
CREATE (run)-[:$(l.rel)]->(n)
RETURN count(*) AS linked
