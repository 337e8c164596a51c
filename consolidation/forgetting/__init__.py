"""What a tenant controls: forgetting on request and the API keys of its callers."""
