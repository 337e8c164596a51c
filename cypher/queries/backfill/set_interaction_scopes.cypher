// Gives interactions from before scopes their tokens (graph/backfill.py); a node that has some by
// now keeps them.
UNWIND $rows AS r
MATCH (n:Interaction) WHERE elementId(n) = r.node AND n.scopes IS NULL
SET n.scopes = r.scopes
RETURN count(n) AS updated
