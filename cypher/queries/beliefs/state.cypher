// What a change to a user's beliefs relies on, read under the user's lease before it writes:
// the target fact's status (null: no such fact for this owner), and whether the named
// interaction is this owner's (a null id asks nothing).
// By the id's unique index, pinned: on a fresh database's statistics the planner took another.
OPTIONAL MATCH (f:Fact {tenant: $tenant, user_id: $user_id, id: $fact_id})
USING INDEX SEEK f:Fact(id)
WITH f
OPTIONAL MATCH (i:Interaction {tenant: $tenant, user_id: $user_id, id: $interaction_id})
USING INDEX SEEK i:Interaction(id)
RETURN f.status AS status, f.valid_from AS valid_from, i IS NOT NULL AS interaction_found
