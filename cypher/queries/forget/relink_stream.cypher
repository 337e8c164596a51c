// Before the forgotten interaction is removed, its neighbours in the user's stream are chained
// directly, and the user's last-interaction pointer moves back when it pointed at it.
MATCH (u:User {tenant: $tenant, id: $user_id})
// By the id's unique index, pinned: on a fresh database's statistics the planner took another.
MATCH (x:Interaction {tenant: $tenant, user_id: $user_id, id: $id})
USING INDEX SEEK x:Interaction(id)
OPTIONAL MATCH (before:Interaction)-[:NEXT]->(x)
OPTIONAL MATCH (x)-[:NEXT]->(after:Interaction)
CALL (before, after) {
  WITH before, after WHERE before IS NOT NULL AND after IS NOT NULL
  CREATE (before)-[:NEXT]->(after)
}
SET u.last_interaction_id = CASE WHEN u.last_interaction_id = x.id THEN before.id
                                 ELSE u.last_interaction_id END
RETURN x.id AS id
