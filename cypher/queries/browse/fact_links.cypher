// The SUPERSEDES edges at each fact: what it replaced and what replaced it, with reason and time.
MATCH (f:Fact)
WHERE f.id IN $ids AND f.tenant = $tenant
CALL (f) {
  OPTIONAL MATCH (f)-[s:SUPERSEDES]->(old:Fact)
  WHERE old.tenant = $tenant AND old.user_id = f.user_id
  RETURN collect(CASE WHEN old IS NULL THEN null
    ELSE {fact: old {.*, embedding: null}, reason: s.reason, at: s.at} END) AS supersedes
}
CALL (f) {
  OPTIONAL MATCH (newer:Fact)-[s:SUPERSEDES]->(f)
  WHERE newer.tenant = $tenant AND newer.user_id = f.user_id
  RETURN collect(CASE WHEN newer IS NULL THEN null
    ELSE {fact: newer {.*, embedding: null}, reason: s.reason, at: s.at} END) AS superseded_by
}
RETURN f.id AS anchor, supersedes, superseded_by
