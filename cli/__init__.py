"""The `recmem` command line: the server, keys, memory, calibration, analytics and the local Neo4j."""
