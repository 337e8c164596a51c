// Never run. The statement the GraphQL fuzz (bench/fuzz/values.py) hides in a string argument,
// "'; <this> //", in the hope that nothing ever executes user text as Cypher.
MATCH (n) DETACH DELETE n
