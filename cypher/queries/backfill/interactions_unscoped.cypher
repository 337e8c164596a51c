// Up to $batch interactions written before scopes existed (graph/backfill.py): what their scope
// tokens are made of.
MATCH (n:Interaction)
WHERE n.scopes IS NULL AND NOT n:Erased  // an erased node is emptied, not old: it stays empty
RETURN elementId(n) AS node, n.session_id AS session_id, n.speaker AS speaker, n.agent_id AS agent_id,
       n.metadata AS metadata
LIMIT $batch
