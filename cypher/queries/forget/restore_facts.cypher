// Makes the facts forget_interaction selected with restorable_facts current again.
UNWIND $ids AS restored_id
MATCH (old:Fact {tenant: $tenant, user_id: $user_id, id: restored_id})
SET old.status = 'active', old.valid_to = null
RETURN collect(old.id) AS ids
