// The lexical parity check (bench/lexical_parity.py): every interaction's text in the database, all
// tenants, as the full-text index holds them (its statistics are over all of them).
MATCH (n:Interaction) RETURN n.id AS id, n.tenant AS tenant, n.user_id AS user_id, n.text AS text
