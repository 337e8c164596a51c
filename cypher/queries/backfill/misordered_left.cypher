// The facts still valid at no instant (valid_to before valid_from) once the replacements that can
// be reversed were (graph/backfill.py): the backfill leaves them as they are and counts them.
MATCH (f:Fact)
WHERE f.valid_to IS NOT NULL AND f.valid_to < f.valid_from
RETURN count(f) AS facts
