// The facts still valid at no instant (valid_to before valid_from) once the replacements that can
// be reversed were (graph/backfill.py): the backfill leaves them as they are and counts them, in
// all and for the $shown tenants holding most (most first), so an operator knows which tenant to
// read with the analytic facts_valid_at_no_instant.
MATCH (f:Fact)
WHERE f.valid_to IS NOT NULL AND f.valid_to < f.valid_from
WITH f.tenant AS tenant, count(f) AS facts
ORDER BY facts DESC, tenant
WITH collect({tenant: tenant, facts: facts}) AS held
RETURN reduce(n = 0, h IN held | n + h.facts) AS facts, held[..$shown] AS tenants
