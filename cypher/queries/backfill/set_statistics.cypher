// The lexical statistics (items and words per layer) and count of long interactions (those with
// parts: recall/dense.cypher skips parts when it is 0) of each user in $users ({tenant, user_id}),
// counted from the items, each under the user's write lock (held to the commit), so that no write
// lands between the count and the SET (writes take the same lock and add to the statistics only
// once they are set). A user whose items are still without lex_length is left for later.
UNWIND $users AS key
MATCH (u:User {tenant: key.tenant, id: key.user_id})
USING INDEX SEEK u:User(tenant, id)
SET u._lock = true
REMOVE u._lock
WITH u
CALL (u) {
  OPTIONAL MATCH (n:Interaction {tenant: u.tenant, user_id: u.id})
  RETURN count(n) AS interactions, sum(n.lex_length) AS interactions_length,
         count(n) = count(n.lex_length) AS interactions_known
}
CALL (u) {
  OPTIONAL MATCH (n:Episode {tenant: u.tenant, user_id: u.id})
  RETURN count(n) AS episodes, sum(n.lex_length) AS episodes_length,
         count(n) = count(n.lex_length) AS episodes_known
}
CALL (u) {
  OPTIONAL MATCH (n:Fact {tenant: u.tenant, user_id: u.id})
  RETURN count(n) AS facts, sum(n.lex_length) AS facts_length, count(n) = count(n.lex_length) AS facts_known
}
CALL (u) {
  OPTIONAL MATCH (n:Interaction {tenant: u.tenant, user_id: u.id})
  WHERE EXISTS { (n)-[:HAS_PART]->(:InteractionPart) }
  RETURN count(n) AS long_interactions
}
WITH u, interactions, interactions_length, episodes, episodes_length, facts, facts_length, long_interactions,
     interactions_known AND episodes_known AND facts_known AS known
WHERE known
SET u.lex_interactions = interactions, u.lex_interactions_length = interactions_length,
    u.lex_episodes = episodes, u.lex_episodes_length = episodes_length,
    u.lex_facts = facts, u.lex_facts_length = facts_length, u.long_interactions = long_interactions
RETURN count(u) AS updated
