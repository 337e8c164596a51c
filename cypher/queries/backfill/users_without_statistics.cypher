// Up to $batch users from before the lexical statistics or the long-interaction count (any null).
MATCH (u:User)
WHERE u.lex_interactions IS NULL OR u.lex_episodes IS NULL OR u.lex_facts IS NULL
   OR u.long_interactions IS NULL
RETURN u.tenant AS tenant, u.id AS user_id
LIMIT $batch
