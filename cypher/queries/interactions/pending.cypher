// Interactions whose recurrence gate has not run yet, oldest first, with their vectors for the gate.
// A crash or an LLM failure leaves them here, so the next pass picks them up again. The gate's
// index is pinned: by the owner index the planner may pick, a pass reads the user's whole history.
MATCH (n:Interaction {tenant: $tenant, user_id: $user_id})
USING INDEX SEEK n:Interaction(tenant, user_id, gate_checked)
WHERE n.gate_checked = false
RETURN n {.*, embedding: null} AS interaction, n.embedding AS embedding
ORDER BY n.seq
LIMIT $limit
