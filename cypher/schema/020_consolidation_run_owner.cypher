CREATE INDEX consolidation_run_owner IF NOT EXISTS FOR (n:ConsolidationRun) ON (n.tenant, n.user_id)
