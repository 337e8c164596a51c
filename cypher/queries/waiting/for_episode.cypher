// The turns of this owner waiting for one episode, in stream order, with the similarity to the
// episode each had when it was marked (the merge's recurrence provenance).
MATCH (n:Interaction {tenant: $tenant, user_id: $user_id})
WHERE n.awaits = $episode_id AND n.consolidated = false
RETURN n {.*, embedding: null} AS interaction, n.awaits_similarity AS similarity
ORDER BY n.seq
