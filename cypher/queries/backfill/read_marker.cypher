// The backfill version whose every step last ran to the end on this database (null before), and
// the facts valid at no instant it then left (graph/backfill.py).
MATCH (m:SchemaMeta {id: 'recmem'})
RETURN m.backfilled AS version, m.misordered_left AS misordered_left
