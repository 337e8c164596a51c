// Every version in the chain of the given episode, newest first.
MATCH (e:Episode {tenant: $tenant, user_id: $user_id, id: $id})
MATCH p = (newest:Episode)-[:SUPERSEDES*0..]->(e)
WHERE NOT (:Episode)-[:SUPERSEDES]->(newest)
WITH newest ORDER BY newest.version DESC LIMIT 1
MATCH (newest)-[:SUPERSEDES*0..]->(v:Episode)
RETURN v {.*, embedding: null} AS episode
ORDER BY v.version DESC
