"""Consolidating: the pipeline, its consolidators (LLM or offline) and their prompts, the runs
they record, the leases and the background workers."""
