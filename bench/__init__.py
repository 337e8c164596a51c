"""The benchmarks. Each runs as a module from the repository root, e.g. `python -m bench.service`
(the editable install puts the root on the path; no bench module edits `sys.path`)."""
