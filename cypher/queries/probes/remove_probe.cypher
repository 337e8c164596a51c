// Removes the node written by probes/commit_unindexed.
MATCH (p:BenchProbe {id: $id})
DELETE p
