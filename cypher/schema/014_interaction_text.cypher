CREATE FULLTEXT INDEX interaction_text IF NOT EXISTS FOR (n:Interaction) ON EACH [n.text]
