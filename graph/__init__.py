"""Neo4j storage layer: driver, schema, repositories. Knows nothing of LLMs."""
