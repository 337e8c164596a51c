// One consolidation's event, appended in the transaction that commits the consolidation, so that
// every service process can rebuild it (the `consolidations` subscription polls these records).
// The increment write-locks the user, so `seq` rises by one per event of the user, in commit order.
// `origin`: the lease holder that committed it (its own process delivered the event already).
MATCH (u:User {tenant: $tenant, id: $user_id})
SET u.event_seq = coalesce(u.event_seq, 0) + 1
CREATE (e:ConsolidationEvent {
  id: $id, tenant: $tenant, user_id: $user_id, seq: u.event_seq, origin: $origin, at: datetime(),
  trigger_id: $trigger_id, action: $action, episode_id: $episode_id,
  previous_episode_id: $previous_episode_id, fact_ids: $fact_ids,
  superseded_fact_ids: $superseded_fact_ids, consolidated_ids: $consolidated_ids,
  llm_calls: $llm_calls
})
RETURN e.seq AS seq
