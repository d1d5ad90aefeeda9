"""How fast this machine runs plain Python right now, printed beside timed figures as a
condition of the run: its two cores are shared and their speed moves by the day and by
the hour (docs/benchmarks.md, docs/benchmarks-server.md).  A reading, not a correction:
the server's CPU per action did not follow it (docs/benchmarks-server.md, sixth sitting)."""

from __future__ import annotations

import time


def calibration() -> float:
    """Millions of plain loop additions a CPU second: how fast this machine is right now."""
    start = time.process_time()
    total = 0
    for i in range(2_000_000):
        total += i
    return 2.0 / (time.process_time() - start)
