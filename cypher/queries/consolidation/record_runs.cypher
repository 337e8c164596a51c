// Audit and cost: one node per LLM (or offline) operation, with what it read and produced.
MATCH (u:User {tenant: $tenant, id: $user_id})
UNWIND $runs AS r
CREATE (run:ConsolidationRun {
  id: r.id, tenant: $tenant, user_id: $user_id, op: r.op, trigger: r.trigger,
  provider: r.provider, model: r.model, status: r.status,
  prompt_tokens: r.prompt_tokens, completion_tokens: r.completion_tokens,
  latency_ms: r.latency_ms, neighbor_count: r.neighbor_count, threshold: r.threshold,
  at: datetime(r.at), error: r.error, reason: r.reason, by: r.by,
  triggered_by: r.triggered_by, rule: r.rule
})
CREATE (u)-[:HAS]->(run)
RETURN count(run) AS recorded
