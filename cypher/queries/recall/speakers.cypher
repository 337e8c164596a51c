// Which of $candidates (names the question writes capitalised, consolidation/recall/names.py) are
// speakers of one user's interactions: the user's own, never another tenant's or user's. One
// index seek per candidate (schema/030), so its cost does not grow with the user's turns.
UNWIND $candidates AS candidate
CALL (candidate) {
  MATCH (n:Interaction {tenant: $tenant, user_id: $user_id, speaker: candidate})
  USING INDEX SEEK n:Interaction(tenant, user_id, speaker)  // else, on a fresh database, every turn
  RETURN n.speaker AS speaker
  LIMIT 1
}
RETURN DISTINCT speaker
