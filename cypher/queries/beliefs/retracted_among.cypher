// The user's retracted facts that rest on the sources a consolidation rests on: the turns it
// reads ($interaction_ids) and those of the episode version it extends ($episode_id, or null).
// Refinement is shown them so that it does not restate them (consolidation/consolidating/retractions.py).
// They are sought by the (tenant, user_id, status) index: the user's other facts are not read. A
// seek, pinned: a scan of that index, planned on a near-empty database, reads every tenant's facts.
MATCH (f:Fact {tenant: $tenant, user_id: $user_id, status: 'retracted'})
USING INDEX SEEK f:Fact(tenant, user_id, status)
WHERE EXISTS {
  MATCH (f)-[:DERIVED_FROM]->(i:Interaction)
  WHERE i.id IN $interaction_ids
     OR EXISTS {
       MATCH (e:Episode {id: $episode_id})-[:DERIVED_FROM]->(i)
       USING INDEX SEEK e:Episode(id)
       WHERE e.tenant = $tenant AND e.user_id = $user_id
     }
}
WITH f ORDER BY f.valid_to DESC, f.id
LIMIT $limit
RETURN f.id AS id, f.text AS text, f.kind AS kind,
       [(f)-[:DERIVED_FROM]->(i:Interaction) | i.id] AS source_ids
