// The embedder and dimension this database was built with (no row before the first migration).
MATCH (m:SchemaMeta {id: 'recmem'})
RETURN m.embedder AS embedder, m.dimension AS dimension, m.schema_version AS schema_version
