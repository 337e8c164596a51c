// What erasing the facts $fact_ids does to the facts they superseded. A fact stays superseded when
// a surviving fact replaced it, directly or through a chain of replacements that are all erased;
// such a chain is contracted (`relinks`: the survivor will replace it directly), so a belief someone
// replaced never comes back beside its replacement. A fact whose every chain of replacements ends
// in erased facts becomes current again (`ids`), so memory reads as if the forgotten turn had never
// been said. Read only: the forget's transaction and its preview both select with this.
CYPHER 25
UNWIND $fact_ids AS gone_id
// By the id's unique index, pinned: on a fresh database's statistics the planner took another.
MATCH (gone:Fact {tenant: $tenant, user_id: $user_id, id: gone_id})
USING INDEX SEEK gone:Fact(id)
MATCH (gone)-[:SUPERSEDES]->(old:Fact)
WHERE NOT old.id IN $fact_ids
WITH DISTINCT old
CALL (old) {
  // Each surviving fact above it, and the fewest erased facts between them (0: it replaced it).
  OPTIONAL MATCH (old) ((:Fact)<-[:SUPERSEDES]-(between:Fact WHERE between.id IN $fact_ids))*
                 (:Fact)<-[:SUPERSEDES]-(survivor:Fact WHERE NOT survivor.id IN $fact_ids)
  WITH survivor, min(size(between)) AS hops
  WHERE survivor IS NOT NULL
  RETURN count(survivor) AS survivors,
         collect(CASE WHEN hops > 0 THEN {survivor_id: survivor.id, old_id: old.id} END) AS relinks
}
RETURN collect(CASE WHEN survivors = 0 THEN old.id END) AS ids,
       reduce(pairs = [], r IN collect(relinks) | pairs + r) AS relinks
