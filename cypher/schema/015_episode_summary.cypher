CREATE FULLTEXT INDEX episode_summary IF NOT EXISTS FOR (n:Episode) ON EACH [n.summary]
