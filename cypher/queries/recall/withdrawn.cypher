// The beliefs a person withdrew that rest on a recall's evidence: the user's facts retracted, or
// superseded by a fact that a person's correction produced, DERIVED_FROM one of the evidence's
// episodes ($episode_ids) or turns ($interaction_ids), directly or through an episode they derive
// from; with $as_of, only those withdrawn (valid_to) at or before it. The most recently withdrawn
// first (consolidation/recall/recaller.py). The user's facts come from the owner index; only the
// withdrawn ones (the sort keeps the planner from checking the others' edges) are followed.
MATCH (f:Fact {tenant: $tenant, user_id: $user_id})
WHERE f.status IN [$retracted, $superseded]
  AND ($as_of IS NULL OR f.valid_to <= $as_of)
WITH f ORDER BY f.valid_to DESC, f.id
WHERE (f.status = $retracted OR EXISTS {
    MATCH (f)<-[:SUPERSEDES]-(:Fact)<-[:PRODUCED]-(run:ConsolidationRun)
    WHERE run.provider = $person AND run.trigger = $correction
  })
  AND EXISTS {
    MATCH (f)-[:DERIVED_FROM]->(source)
    WHERE source.id IN $episode_ids OR source.id IN $interaction_ids
       OR EXISTS { MATCH (source:Episode)-[:DERIVED_FROM]->(i:Interaction) WHERE i.id IN $interaction_ids }
  }
WITH f ORDER BY f.valid_to DESC, f.id
LIMIT $limit
RETURN f {.*, embedding: null} AS fact
