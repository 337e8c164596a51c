// Introspection of a benchmark's throwaway database: how many interactions it holds (all tenants).
MATCH (n:Interaction) RETURN count(n) AS n
