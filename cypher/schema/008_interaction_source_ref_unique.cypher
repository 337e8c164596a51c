// Makes a retried write with the caller's source_ref a no-op instead of a duplicate.
CREATE CONSTRAINT interaction_source_ref_unique IF NOT EXISTS
FOR (n:Interaction) REQUIRE (n.tenant, n.user_id, n.source_ref) IS UNIQUE
