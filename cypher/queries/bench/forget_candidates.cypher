// The forget-cost bench (bench/forget_cost.py): each of one user's interactions with how many
// episode versions and facts rest on it directly, most first (ties by source_ref, so reruns on
// the same data pick the same turns).
MATCH (i:Interaction {tenant: $tenant, user_id: $user_id})
RETURN i.id AS id, i.source_ref AS source_ref,
       COUNT { (:Episode)-[:DERIVED_FROM]->(i) } AS episodes,
       COUNT { (:Fact)-[:DERIVED_FROM]->(i) } AS facts
ORDER BY episodes + facts DESC, source_ref
