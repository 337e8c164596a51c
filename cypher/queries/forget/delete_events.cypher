// Consolidation events that name any erased node (trigger, episode versions, facts, absorbed
// interactions) go with it: the event log keeps no trace of forgotten memory. Every event has a
// seq (events/append.cypher): saying so lets the user's events be found by the (tenant, user_id,
// seq) index instead of a scan of every tenant's events; a seek, pinned (a scan of that index,
// planned on a near-empty database, reads every tenant's events).
MATCH (e:ConsolidationEvent {tenant: $tenant, user_id: $user_id})
USING INDEX SEEK e:ConsolidationEvent(tenant, user_id, seq)
WHERE e.seq IS NOT NULL
  AND (e.trigger_id IN $node_ids OR e.episode_id IN $node_ids OR e.previous_episode_id IN $node_ids
       OR any(i IN e.consolidated_ids WHERE i IN $node_ids)
       OR any(i IN e.fact_ids + e.superseded_fact_ids WHERE i IN $node_ids))
WITH collect(e) AS events
FOREACH (e IN events | DETACH DELETE e)
RETURN size(events) AS erased
