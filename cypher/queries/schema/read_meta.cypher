// What this database's vectors are made with (no row before the first migration). A database
// migrated before templates were recorded has no template: it embedded the bare text.
MATCH (m:SchemaMeta {id: 'recmem'})
RETURN m.embedder AS embedder, m.dimension AS dimension, m.template AS template,
       m.schema_version AS schema_version
