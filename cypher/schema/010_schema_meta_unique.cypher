CREATE CONSTRAINT schema_meta_id_unique IF NOT EXISTS FOR (n:SchemaMeta) REQUIRE n.id IS UNIQUE
