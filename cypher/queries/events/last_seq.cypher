// Where a reader of the user's consolidation events starts: the latest event's sequence (0: none
// yet, or no such user yet) and the user's creation time (see since.cypher).
OPTIONAL MATCH (u:User {tenant: $tenant, id: $user_id})
RETURN coalesce(u.event_seq, 0) AS seq, toString(u.created_at) AS incarnation
