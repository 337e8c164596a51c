// Facts that only erased facts had superseded: forgetting makes them current again, so memory
// reads as if the forgotten turn had never been said. A fact also superseded by a surviving fact
// stays superseded. Read only: the forget's transaction and its preview both select with this.
UNWIND $fact_ids AS gone_id
MATCH (gone:Fact {tenant: $tenant, user_id: $user_id, id: gone_id})-[:SUPERSEDES]->(old:Fact)
WHERE NOT old.id IN $fact_ids
  AND NOT EXISTS { MATCH (other:Fact)-[:SUPERSEDES]->(old) WHERE NOT other.id IN $fact_ids }
WITH DISTINCT old
RETURN collect(old.id) AS ids
