// A retraction: the fact stops holding at $at and stays, retracted, in the audit trail (its
// run, READ by edge, says who and why).
MATCH (f:Fact {tenant: $tenant, user_id: $user_id, id: $id, status: 'active'})
SET f.status = 'retracted', f.valid_to = datetime($at)
RETURN f {.*, embedding: null} AS fact
