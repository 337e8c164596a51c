// Records the embedder on first migration; later migrations only bump the schema version.
MERGE (m:SchemaMeta {id: 'recmem'})
ON CREATE SET m.embedder = $embedder, m.dimension = $dimension, m.created_at = datetime()
SET m.schema_version = $schema_version
RETURN m.embedder AS embedder, m.dimension AS dimension
