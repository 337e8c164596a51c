// Stores each item's word count (graph/backfill.py). Texts do not change in place, so a count made
// from the text just read stays right.
UNWIND $rows AS r
MATCH (n) WHERE elementId(n) = r.node AND n.lex_length IS NULL
SET n.lex_length = r.lex_length
RETURN count(n) AS updated
