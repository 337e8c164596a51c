// owner_key (a hash of tenant and user) lets a Lucene query restrict itself to one user.
CREATE FULLTEXT INDEX episode_summary IF NOT EXISTS FOR (n:Episode) ON EACH [n.summary, n.owner_key]
