// owner_key (a hash of tenant and user) lets a Lucene query restrict itself to one user.
CREATE FULLTEXT INDEX fact_text IF NOT EXISTS FOR (n:Fact) ON EACH [n.text, n.owner_key]
