// Before an episode version that exists only because of the forgotten interaction is removed, its
// chain is mended: the newer version supersedes the older one directly, or, if it was the newest,
// the older version becomes current again. Returns the older version's id (none without one): the
// forget's record reads it, as a belief the forget changed.
// By the id's unique index, pinned: on a fresh database's statistics the planner took another.
MATCH (e:Episode {tenant: $tenant, user_id: $user_id, id: $id})
USING INDEX SEEK e:Episode(id)
OPTIONAL MATCH (e)-[:SUPERSEDES]->(older:Episode)
OPTIONAL MATCH (newer:Episode)-[s:SUPERSEDES]->(e)
CALL (older, newer, s) {
  WITH older, newer, s WHERE older IS NOT NULL AND newer IS NOT NULL
  CREATE (newer)-[:SUPERSEDES {run_id: s.run_id, at: s.at}]->(older)
  SET older.superseded_at = newer.valid_from
}
CALL (e, older, newer) {
  WITH e, older, newer WHERE older IS NOT NULL AND newer IS NULL
  SET older.current = e.current, older.superseded_at = e.superseded_at
}
RETURN [id IN [older.id] WHERE id IS NOT NULL] AS mended
