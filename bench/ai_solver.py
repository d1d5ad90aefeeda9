"""Speed of the double-dummy solver by tricks left: ``python bench/ai_solver.py``.

Prints, per number of tricks left and per search mode, the mean time and nodes of one
``move_values`` call on random positions (hands of equal size, leader to play), the cost
``hard`` pays per sampled deal.
"""

from __future__ import annotations

import random
import time

from ai.hard import EXACT_TRICKS, HORIZON
from ai.solver import Solver
from engine.options import Options


def main() -> None:
    rng = random.Random(1)
    options = Options.make("bulgarian")
    print("tricks  mode       contract    ms/solve   nodes/solve")
    for tricks in range(2, 9):
        horizon = 8 if tricks <= EXACT_TRICKS else HORIZON
        mode = "exact" if horizon == 8 else f"horizon {horizon}"
        for contract, name in ((0, "suit"), (4, "NT"), (5, "AT")):
            runs, elapsed, nodes = 10, 0.0, 0
            for _ in range(runs):
                deck = list(range(32))
                rng.shuffle(deck)
                hands = [sum(1 << c for c in deck[s * tricks:(s + 1) * tricks]) for s in range(4)]
                solver = Solver(contract, options, horizon)
                start = time.perf_counter()
                solver.move_values(hands, [], 0)
                elapsed += time.perf_counter() - start
                nodes += solver.nodes
            print(f"{tricks:>6}  {mode:<10} {name:<8} {1000 * elapsed / runs:>10.1f}"
                  f" {nodes // runs:>13}")


if __name__ == "__main__":
    main()
