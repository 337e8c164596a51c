"""Writing: the check of a remember, group commit, per-user locks and the recurrence gate."""
