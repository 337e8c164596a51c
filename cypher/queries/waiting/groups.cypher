// Every group of this owner's waiting turns (one group per episode waited for, oldest group
// first), each with its turns in stream order, the episode when it is still current (null once
// forgotten or superseded) and whether the group is due for its batch merge: $everything (an
// explicit consolidate), $batch turns gathered, or its session ended: the user's newest
// interaction belongs to another session, or was written more than $quiet_ms ago (by Neo4j's
// clock). One row; `flagged`: the user carries the waiting hint (settle.cypher drops it).
MATCH (u:User {tenant: $tenant, id: $user_id})
OPTIONAL MATCH (last:Interaction {tenant: $tenant, user_id: $user_id, id: u.last_interaction_id})
// Each lookup by id and the waiting turns' read are pinned (graph-model.md#pinned-indexes).
USING INDEX SEEK last:Interaction(id)
CALL (u, last) {
  // Users without the hint (most passes) read no turn at all.
  WITH u, last WHERE u.awaiting = true
  MATCH (n:Interaction {tenant: $tenant, user_id: $user_id})
  USING INDEX SEEK n:Interaction(tenant, user_id, awaits)
  WHERE n.awaits IS NOT NULL AND n.consolidated = false
  WITH n ORDER BY n.seq
  WITH last, n.awaits AS episode_id, collect(n) AS turns
  WITH last, episode_id, turns, turns[size(turns) - 1] AS newest
  OPTIONAL MATCH (e:Episode {tenant: $tenant, user_id: $user_id, id: episode_id})
  USING INDEX SEEK e:Episode(id)
  WHERE e.current = true
  WITH newest, {
    episode_id: episode_id,
    episode: e {.*, embedding: null},
    due: $everything OR size(turns) >= $batch OR last IS NULL
      OR coalesce(last.session_id, '') <> coalesce(newest.session_id, '')
      OR last.created_at < datetime() - duration({milliseconds: $quiet_ms}),
    turns: [t IN turns | t {.*, embedding: null}],
    similarities: [t IN turns | t.awaits_similarity]
  } AS grp
  ORDER BY newest.seq
  RETURN collect(grp) AS groups
}
RETURN coalesce(u.awaiting, false) AS flagged, groups
