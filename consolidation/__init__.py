"""The memory domain: ingest, recurrence gate, episodes, facts, recall, answers, providers."""
