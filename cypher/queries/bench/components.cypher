// Introspection only (no user data): the server's version and edition, for the report.
CALL dbms.components() YIELD name, versions, edition RETURN name, versions, edition
