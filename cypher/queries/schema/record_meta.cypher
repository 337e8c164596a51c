// The end of a re-embedding (`recmem db reembed`): every vector is now made as these say.
MERGE (m:SchemaMeta {id: 'recmem'})
ON CREATE SET m.created_at = datetime()
SET m.embedder = $embedder, m.dimension = $dimension, m.template = $template,
    m.schema_version = $schema_version, m.reembedded_at = datetime()
