// Makes the facts forget_interaction selected with restorable_facts current again.
UNWIND $ids AS restored_id
// By the id's unique index, pinned: on a fresh database's statistics the planner took another.
MATCH (old:Fact {tenant: $tenant, user_id: $user_id, id: restored_id})
USING INDEX SEEK old:Fact(id)
SET old.status = 'active', old.valid_to = null
RETURN collect(old.id) AS ids
