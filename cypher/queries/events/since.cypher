// The user's consolidation events after sequence $after, oldest first, at most $limit, with the
// user's creation time (`incarnation`; null when there is no such user): a user forgotten and
// written again is a new node whose log starts over at 1, which a reader tells by this.
OPTIONAL MATCH (u:User {tenant: $tenant, id: $user_id})
WITH toString(u.created_at) AS incarnation, coalesce(u.event_seq, 0) AS last
OPTIONAL MATCH (e:ConsolidationEvent {tenant: $tenant, user_id: $user_id})
WHERE last > $after AND e.seq > $after
WITH incarnation, e
ORDER BY e.seq
LIMIT $limit
RETURN incarnation, collect(e {
  .seq, .origin, .trigger_id, .action, .episode_id, .previous_episode_id, .fact_ids,
  .superseded_fact_ids, .consolidated_ids, .llm_calls
}) AS events
