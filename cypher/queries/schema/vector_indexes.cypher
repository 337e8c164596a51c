// Each vector index with the dimension it was built for (a re-embedding may need another).
SHOW VECTOR INDEXES YIELD name, options
RETURN name, options.indexConfig.`vector.dimensions` AS dimension
