CREATE INDEX consolidation_event_seq IF NOT EXISTS FOR (n:ConsolidationEvent) ON (n.tenant, n.user_id, n.seq)
