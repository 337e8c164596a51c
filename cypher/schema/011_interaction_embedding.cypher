// Cosine vector index; tenant, user_id and consolidated are stored in the index so that per-user
// SEARCH filters inside the index instead of after it (k hits whenever the user has k candidates).
// Quantization is off: exact scores, and Neo4j 2026.08.1 corrupts a quantized index with filter
// properties once a node whose filter property changed is deleted (found by the forget tests).
CYPHER 25
CREATE VECTOR INDEX interaction_embedding IF NOT EXISTS
FOR (n:Interaction) ON n.embedding
WITH [n.tenant, n.user_id, n.consolidated]
OPTIONS {indexConfig: {
  `vector.dimensions`: $dimension,
  `vector.similarity_function`: 'cosine',
  `vector.quantization.enabled`: false
}}
