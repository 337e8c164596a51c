// The facts still valid at no instant (valid_to before valid_from) once the replacements that can
// be reversed were (graph/backfill.py): the backfill leaves them as they are and counts them, in
// all and for the $shown tenants holding most (most first), so an operator knows which tenant to
// read with the analytic facts_valid_at_no_instant. A fact a person settled is not counted: it,
// or a fact that replaced it (through later replacements), was retracted ($retracted) or replaced
// by a person's correction (a run of $person with the trigger $correction); a person cannot change
// the fact itself, which no longer holds.
MATCH (f:Fact)
WHERE f.valid_to IS NOT NULL AND f.valid_to < f.valid_from
  AND NOT EXISTS {
    MATCH (f)<-[:SUPERSEDES*0..]-(later:Fact)
    WHERE later.status = $retracted
       OR EXISTS {
         MATCH (later)<-[s:SUPERSEDES]-(:Fact)
         MATCH (run:ConsolidationRun {id: s.run_id})
         WHERE run.tenant = f.tenant AND run.user_id = f.user_id
           AND run.provider = $person AND run.trigger = $correction
       }
  }
WITH f.tenant AS tenant, count(f) AS facts
ORDER BY facts DESC, tenant
WITH collect({tenant: tenant, facts: facts}) AS held
RETURN reduce(n = 0, h IN held | n + h.facts) AS facts, held[..$shown] AS tenants
