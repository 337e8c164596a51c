// Reverses one user's replacements that versions before the in-order rule wrote out of time order
// (docs/design/graph-model.md#replacement): a consolidated fact n, said before the fact o it named,
// closed o at n's own start, so o holds at no instant and n is current. Ends as the current rule
// writes the same facts: o active again, n superseded from the earliest start of the facts it so
// closed, each edge reversed with its run and the reason the rule gives a reversed edge. Only the
// case stated there: n active, replaced by nothing; o closed by that one edge, at n's start;
// neither fact nor the edge a person's change; every fact n closed that began after it so closed.
// Runs after the user's lease check (graph/backfill.py). One row per reversed edge, with what it
// held before.
MATCH (n:Fact {tenant: $tenant, user_id: $user_id, status: 'active'})
      -[s:SUPERSEDES]->(o:Fact {tenant: $tenant, user_id: $user_id, status: 'superseded'})
WHERE o.valid_to < o.valid_from AND o.valid_to = n.valid_from AND s.at = n.valid_from
  AND n.valid_to IS NULL
  AND NOT EXISTS { (:Fact)-[:SUPERSEDES]->(n) }
  AND COUNT { (:Fact)-[:SUPERSEDES]->(o) } = 1
  AND NOT EXISTS {
    MATCH (run:ConsolidationRun)-[:PRODUCED]->(x:Fact)
    WHERE x IN [n, o] AND run.provider = $person
  }
  AND NOT EXISTS {
    MATCH (run:ConsolidationRun {id: s.run_id})
    WHERE run.tenant = $tenant AND run.user_id = $user_id AND run.provider = $person
  }
WITH n, collect({fact: o, edge: s}) AS later
WHERE size(later) = COUNT { (n)-[:SUPERSEDES]->(x:Fact) WHERE x.valid_from > n.valid_from }
CALL (later) {
  UNWIND later AS l
  RETURN min(l.fact.valid_from) AS ends
}
SET n.status = 'superseded', n.valid_to = ends
WITH n, ends, later
UNWIND later AS l
WITH n, ends, l.fact AS o, l.edge AS s
WITH n, ends, o, s, s.reason AS given, s.run_id AS run_id, s.at AS closed
// The reason the rule writes on a reversed edge (consolidation/create_facts.cypher).
WITH n, ends, o, s, run_id, closed, given,
     [t IN [n.valid_from, o.valid_from, ends] | toString(datetime({datetime: t, timezone: 'Z'}))] AS utc
WITH n, ends, o, s, run_id, closed,
     'Reversed by time order: the replaced fact, said ' + utc[0]
     + ', was consolidated after the replacing fact, said ' + utc[1]
     + ', and named it as the fact it replaced; the one said first ends at ' + utc[2] + '.'
     + CASE WHEN coalesce(given, '') = '' THEN ''
       ELSE ' Reason given for the opposite direction: ' + given END AS reason
DELETE s
SET o.status = 'active', o.valid_to = null
CREATE (o)-[:SUPERSEDES {at: ends, reason: reason, run_id: run_id}]->(n)
RETURN n.id AS earlier_id, o.id AS later_id, closed, ends
ORDER BY earlier_id, later_id
