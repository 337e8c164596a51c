// The readiness probe (`/readyz`): a real read transaction on the database, answered from the
// schema's own marker node, so it fails whenever the database refuses or cannot run transactions.
MATCH (m:SchemaMeta)
RETURN count(m) AS markers
