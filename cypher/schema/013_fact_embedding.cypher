// Cosine vector index; tenant, user_id and status are stored in the index so that per-user
// SEARCH filters inside the index instead of after it (k hits whenever the user has k candidates).
CYPHER 25
CREATE VECTOR INDEX fact_embedding IF NOT EXISTS
FOR (n:Fact) ON n.embedding
WITH [n.tenant, n.user_id, n.status]
OPTIONS {indexConfig: {
  `vector.dimensions`: $dimension,
  `vector.similarity_function`: 'cosine'
}}
