// Records that every step of backfill $version ran to the end ($version null: some step left work
// for the next migration), and the facts valid at no instant left (graph/backfill.py). Nothing on a
// database never migrated (no meta: the embedder guard reads it).
MATCH (m:SchemaMeta {id: 'recmem'})
SET m.backfilled = $version, m.misordered_left = $misordered_left
RETURN m.backfilled AS version
