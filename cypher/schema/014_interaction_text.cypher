// owner_key (a hash of tenant and user) lets a Lucene query restrict itself to one user.
CREATE FULLTEXT INDEX interaction_text IF NOT EXISTS FOR (n:Interaction) ON EACH [n.text, n.owner_key]
