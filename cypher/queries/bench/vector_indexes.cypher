// Introspection only (no user data): the vector indexes the server runs, for the report.
SHOW VECTOR INDEXES YIELD name, state, populationPercent, options
RETURN name, state, populationPercent, options
