// For each episode id, every version of its chain (newest first): walk to the newest version,
// then back through SUPERSEDES.
UNWIND $ids AS anchor
MATCH (e:Episode {id: anchor})
USING INDEX SEEK e:Episode(id)  // else, planned on a fresh database, a scan: every tenant's
WHERE e.tenant = $tenant
CALL (e) {
  MATCH (newest:Episode)-[:SUPERSEDES*0..]->(e)
  WHERE NOT (:Episode)-[:SUPERSEDES]->(newest)
  RETURN newest ORDER BY newest.version DESC LIMIT 1
}
MATCH (newest)-[:SUPERSEDES*0..]->(v:Episode)
WHERE v.tenant = $tenant AND v.user_id = e.user_id
RETURN anchor, v {.*, embedding: null} AS episode
ORDER BY anchor, v.version DESC
