// Runs that survive must not keep pointing at the forgotten interaction as their trigger.
MATCH (r:ConsolidationRun {tenant: $tenant, user_id: $user_id, trigger: $id})
SET r.trigger = 'forgotten'
RETURN count(r) AS redacted
