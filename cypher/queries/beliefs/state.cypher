// What a change to a user's beliefs relies on, read under the user's lease before it writes:
// the target fact's status (null: no such fact for this owner), and whether the named
// interaction is this owner's (a null id asks nothing).
OPTIONAL MATCH (f:Fact {tenant: $tenant, user_id: $user_id, id: $fact_id})
WITH f
OPTIONAL MATCH (i:Interaction {tenant: $tenant, user_id: $user_id, id: $interaction_id})
RETURN f.status AS status, f.valid_from AS valid_from, i IS NOT NULL AS interaction_found
