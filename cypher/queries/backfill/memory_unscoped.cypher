// Up to $batch episodes and facts written before scopes existed, as (tenant, user, ids) groups for
// forget/rescope.cypher, which derives them from the interactions they rest on. Erased ones
// (emptied in place by forget/tombstone_nodes) are no old data and stay empty.
CALL () {
  MATCH (e:Episode) WHERE e.scopes IS NULL AND NOT e:Erased
  RETURN e.tenant AS tenant, e.user_id AS user_id, e.id AS id, 'episode' AS kind
  LIMIT $batch
  UNION ALL
  MATCH (f:Fact) WHERE f.scopes IS NULL AND NOT f:Erased
  RETURN f.tenant AS tenant, f.user_id AS user_id, f.id AS id, 'fact' AS kind
  LIMIT $batch
}
RETURN tenant, user_id, [x IN collect({id: id, kind: kind}) WHERE x.kind = 'episode' | x.id] AS episode_ids,
       [x IN collect({id: id, kind: kind}) WHERE x.kind = 'fact' | x.id] AS fact_ids
