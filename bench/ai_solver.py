"""Speed of the double-dummy solver by tricks left: ``python bench/ai_solver.py``.

Prints, per number of tricks left, the mean, median and slowest time and the mean nodes
of one ``move_values`` call on random positions (hands of equal size, leader to play):
what ``hard`` pays per sampled deal.  ``compiled`` is the exact search of ai/_solver.c,
which hard uses from the second trick, and its look-ahead of ``FIRST_TRICK_HORIZON``
tricks, which hard uses at the first; ``python`` is what hard does without it (exact
from ``EXACT_TRICKS`` tricks left, a ``HORIZON``-trick look-ahead before).
"""

from __future__ import annotations

import random
import statistics
import time

from ai.hard import EXACT_TRICKS, FIRST_TRICK_HORIZON, HORIZON
from ai.solver import NATIVE, Solver
from engine.options import Options

RUNS = 12  # positions per row, each under the three kinds of contract in turn


def row(tricks: int, native: bool, horizon: int | None = None) -> str:
    rng = random.Random(tricks)
    options = Options.make("bulgarian")
    if horizon is None:
        horizon = 8 if native or tricks <= EXACT_TRICKS else HORIZON
    times, nodes = [], []
    for run in range(RUNS):
        deck = list(range(32))
        rng.shuffle(deck)
        hands = [sum(1 << c for c in deck[s * tricks:(s + 1) * tricks]) for s in range(4)]
        solver = Solver((0, 4, 5)[run % 3], options, horizon, native=native)
        start = time.perf_counter()
        solver.move_values(hands, [], 0)
        times.append(1000 * (time.perf_counter() - start))
        nodes.append(solver.nodes)
    mode = f"{'compiled' if native else 'python'} " + (
        "exact" if horizon == 8 else f"horizon {horizon}")
    return (f"{tricks:>6}  {mode:<18} {statistics.mean(times):>9.1f} "
            f"{statistics.median(times):>9.1f} {max(times):>9.1f} "
            f"{statistics.mean(nodes):>12,.0f}")


def main() -> None:
    print("tricks  mode                 mean ms    p50 ms    max ms   mean nodes")
    for tricks in range(2, 9):
        if NATIVE:
            print(row(tricks, native=True), flush=True)
            if tricks > FIRST_TRICK_HORIZON:
                print(row(tricks, native=True, horizon=FIRST_TRICK_HORIZON), flush=True)
        print(row(tricks, native=False), flush=True)


if __name__ == "__main__":
    main()
