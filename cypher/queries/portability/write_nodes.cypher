// Writes imported nodes by id (MERGE: a rerun rewrites the same nodes): every property replaced
// by the file's (owner fields included, from the import's target), the vector made by the
// running embedder, and the user's ownership edge where the export had one. Creates the tenant
// and the user as the write path does.
CYPHER 25
MERGE (t:Tenant {id: $tenant})
ON CREATE SET t.created_at = datetime()
MERGE (u:User {tenant: $tenant, id: $user_id})
ON CREATE SET u.user_id = $user_id, u.seq = 0, u.created_at = datetime()
MERGE (t)-[:HAS]->(u)
WITH u
UNWIND $rows AS r
MERGE (n:$(r.labels) {id: r.id})
SET n = r.properties
WITH u, n, r
CALL (u, n, r) {
  WITH u, n, r WHERE r.held
  MERGE (u)-[:HAS]->(n)
}
CALL (n, r) {
  WITH n, r WHERE r.embedding IS NOT NULL
  CALL db.create.setNodeVectorProperty(n, 'embedding', toFloatList(r.embedding))
}
RETURN count(n) AS written
