// The database alone: one small write that no index covers (a probe node, updated in place), so
// its time is Neo4j's fixed cost of a write transaction and its commit on this machine. The
// service benchmark compares it with an interaction's write, which also updates the range,
// full-text and vector indexes. Remove the probe with probes/remove_probe.
MERGE (p:BenchProbe {id: $id})
SET p.at = datetime()
