// Records the embedder, dimension and template on first migration; later migrations only bump the
// schema version, and give a database from before templates the one it was built with (the guard
// has checked that the configured template is that one).
MERGE (m:SchemaMeta {id: 'recmem'})
ON CREATE SET m.embedder = $embedder, m.dimension = $dimension, m.created_at = datetime()
SET m.template = coalesce(m.template, $template), m.schema_version = $schema_version
RETURN m.embedder AS embedder, m.dimension AS dimension, m.template AS template
