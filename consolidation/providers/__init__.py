"""Providers: embedders, LLMs, the embedding template, the gate's calibration and re-embedding."""
