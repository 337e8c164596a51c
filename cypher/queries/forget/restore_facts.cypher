// Facts that only erased facts had superseded become current again: memory reads as if the
// forgotten turn had never been said. A fact also superseded by a surviving fact stays superseded.
UNWIND $fact_ids AS gone_id
MATCH (gone:Fact {tenant: $tenant, user_id: $user_id, id: gone_id})-[:SUPERSEDES]->(old:Fact)
WHERE NOT old.id IN $fact_ids
  AND NOT EXISTS { MATCH (other:Fact)-[:SUPERSEDES]->(old) WHERE NOT other.id IN $fact_ids }
WITH DISTINCT old
SET old.status = 'active', old.valid_to = null
RETURN collect(old.id) AS ids
