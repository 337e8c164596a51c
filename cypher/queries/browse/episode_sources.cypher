// The interactions each episode version was made from, with the recurrence similarity, in stream
// order. Neighbours must belong to the episode's own tenant and user.
MATCH (e:Episode)
USING INDEX SEEK e:Episode(id)  // else, planned on a fresh database, a scan: every tenant's
WHERE e.id IN $ids AND e.tenant = $tenant
MATCH (e)-[d:DERIVED_FROM]->(i:Interaction)
WHERE i.tenant = $tenant AND i.user_id = e.user_id
RETURN e.id AS anchor, i {.*, embedding: null} AS interaction, d.similarity AS similarity
ORDER BY e.id, i.seq
