// The whole supersession chain through each fact: every fact it replaced, directly or not, every
// fact that replaced it, and itself, oldest first.
MATCH (f:Fact)
WHERE f.id IN $ids AND f.tenant = $tenant
CALL (f) {
  MATCH (f)-[:SUPERSEDES*0..]->(older:Fact)
  RETURN older AS member
  UNION
  MATCH (newer:Fact)-[:SUPERSEDES*1..]->(f)
  RETURN newer AS member
}
WITH f, member
WHERE member.tenant = $tenant AND member.user_id = f.user_id
RETURN f.id AS anchor, member {.*, embedding: null} AS fact
ORDER BY anchor, member.valid_from, member.created_at, member.id
