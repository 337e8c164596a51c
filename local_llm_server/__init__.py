"""An OpenAI-compatible HTTP server for tests and offline benchmarks. Never used by the service itself."""
