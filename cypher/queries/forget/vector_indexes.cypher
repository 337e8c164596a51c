// The labels with a vector index and how each quantizes: forgetting must not delete nodes out of
// a quantized index with filter properties (see tombstone_nodes.cypher).
SHOW VECTOR INDEXES YIELD labelsOrTypes, options
RETURN labelsOrTypes AS labels, options.indexConfig AS config
