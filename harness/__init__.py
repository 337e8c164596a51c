"""Process helpers that tests and benchmarks share: free ports, a `recmem serve` child process,
and what /proc says of a process. Not part of the wheel."""
