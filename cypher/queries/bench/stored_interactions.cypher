// The concurrency sweep's check (bench/service/sweep.py): every interaction stored for the
// level's users, to find each acknowledged write exactly once.
MATCH (i:Interaction {tenant: $tenant}) WHERE i.user_id IN $users
RETURN i.id AS id, i.user_id AS user, i.seq AS seq
