// Cosine vector index; tenant, user_id and consolidated are stored in the index so that per-user
// SEARCH filters inside the index instead of after it (k hits whenever the user has k candidates).
// No quantization: the 2026.08 default (BINARY, 1 bit per dimension) found 4% of the true top 10
// for a user with 100,000 interactions in bench/vector_search/; full floats keep recall and let
// the per-user filtered search fall back to an exact scan of the user's own vectors. Also, Neo4j
// 2026.08.1 corrupts a quantized index with filter properties when such a node is deleted.
CYPHER 25
CREATE VECTOR INDEX interaction_embedding IF NOT EXISTS
FOR (n:Interaction) ON n.embedding
WITH [n.tenant, n.user_id, n.consolidated]
OPTIONS {indexConfig: {
  `vector.dimensions`: $dimension,
  `vector.similarity_function`: 'cosine',
  `vector.quantization.type`: 'NONE'
}}
