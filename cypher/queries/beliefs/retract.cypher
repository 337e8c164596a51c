// A retraction: the fact stops holding at $at and stays, retracted, in the audit trail (its
// run, READ by edge, says who and why).
// By the id's unique index, pinned: on a fresh database's statistics the planner took another.
MATCH (f:Fact {tenant: $tenant, user_id: $user_id, id: $id, status: 'active'})
USING INDEX SEEK f:Fact(id)
SET f.status = 'retracted', f.valid_to = datetime($at)
RETURN f {.*, embedding: null} AS fact
