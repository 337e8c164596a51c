CREATE CONSTRAINT consolidation_run_id_unique IF NOT EXISTS FOR (n:ConsolidationRun) REQUIRE n.id IS UNIQUE
