// Finds whether a user has a speaker of a given name (recall/speakers.cypher) by a seek, not a
// scan of the user's turns.
CREATE INDEX interaction_speaker IF NOT EXISTS FOR (n:Interaction) ON (n.tenant, n.user_id, n.speaker)
