// Up to $batch users from before the lexical statistics or the long-interaction count (any null),
// after ($after_tenant, $after_user) in (tenant, user) order: an ordered seek of the users' key
// from the cursor, so each batch reads on where the last one ended instead of from the first user.
CALL () {
  MATCH (u:User)
  WHERE u.tenant = $after_tenant AND u.id > $after_user
    AND (u.lex_interactions IS NULL OR u.lex_episodes IS NULL OR u.lex_facts IS NULL
         OR u.long_interactions IS NULL)
  WITH u ORDER BY u.tenant, u.id LIMIT $batch
  RETURN collect(u) AS first
}
// The next tenants' only when the cursor's tenant has fewer left than a batch (else none: a
// comparison with null holds for no user).
WITH first, CASE WHEN size(first) < $batch THEN $after_tenant END AS later_than
CALL (later_than) {
  MATCH (u:User)
  WHERE u.tenant > later_than AND u.id IS NOT NULL
    AND (u.lex_interactions IS NULL OR u.lex_episodes IS NULL OR u.lex_facts IS NULL
         OR u.long_interactions IS NULL)
  WITH u ORDER BY u.tenant, u.id LIMIT $batch
  RETURN collect(u) AS rest
}
UNWIND (first + rest)[..$batch] AS u
RETURN u.tenant AS tenant, u.id AS user_id
