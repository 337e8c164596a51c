"""Many tenants in one database: recall latency and exactness for fixed probe users while other
tenants' users fill it (`python -m bench.many_tenants`, bench/many_tenants/cli.py).

The modules: `data` (layouts, users, texts), `loading`, `measure` (recalls and the exactness
judge), `run` (probes, checkpoints, targets), `results` (the report's typed shapes), `report`
(the chart) and `cli`.
"""

from bench.many_tenants.data import User
from bench.many_tenants.measure import Tally, judge

__all__ = ["Tally", "User", "judge"]
