CREATE INDEX consolidation_run_at IF NOT EXISTS FOR (n:ConsolidationRun) ON (n.at)
