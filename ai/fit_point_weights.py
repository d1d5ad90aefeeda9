"""Fit normal's hand weights for point bids (:data:`ai.points.SUIT_WEIGHTS` and the
others): ``python -m ai.fit_point_weights --deals 1500 --seed 3``.

For random deals, a random seat's team is made to play each strain; the deal is solved
open (:class:`ai.solver.Solver`) from the eldest hand's lead, and the points its team
takes (cards and last trick; belote is added apart) are regressed by least squares on
the seat's features (:func:`ai.points.features`).  Prints the intercept and the weights,
rounded, to copy into ai/points.py.
"""

from __future__ import annotations

import argparse
import random

import numpy as np

from engine.cards import ALL_TRUMPS, NO_TRUMPS
from engine.options import Options

from .points import features
from .solver import Solver, split


def fit(options: Options, strain: int, deals: int, seed: int) -> tuple[float, list[float]]:
    """The intercept and weights for ``strain`` (suits pooled under strain 0..3)."""
    rng = random.Random(seed)
    rows: list[tuple[int, ...]] = []
    target: list[int] = []
    solvers = {k: Solver(k, options, 8) for k in range(6)}
    for _ in range(deals):
        deck = list(range(32))
        rng.shuffle(deck)
        hands = [sum(1 << c for c in deck[8 * s:8 * s + 8]) for s in range(4)]
        k = rng.randrange(4) if strain < NO_TRUMPS else strain
        seat, leader = rng.randrange(4), rng.randrange(4)
        team0, _ = split(solvers[k].value(hands, [], leader), options.card_total(k))
        rows.append(features(hands[seat], k))
        target.append(team0 if seat & 1 == 0 else options.card_total(k) - team0)
    x = np.column_stack([np.ones(len(rows)), np.array(rows, dtype=float)])
    coef, *_ = np.linalg.lstsq(x, np.array(target, dtype=float), rcond=None)
    return round(float(coef[0]), 1), [round(float(c), 1) for c in coef[1:]]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--variant", default="coinche")
    parser.add_argument("--deals", type=int, default=1500)
    parser.add_argument("--seed", type=int, default=3)
    parser.add_argument("--strains", default="suit,NT,AT")
    args = parser.parse_args()
    options = Options.make(args.variant)
    kinds = {"suit": 0, "NT": NO_TRUMPS, "AT": ALL_TRUMPS}
    for name in args.strains.split(","):
        base, weights = fit(options, kinds[name], args.deals, args.seed)
        print(f"{name}: base {base}, weights {tuple(weights)}")


if __name__ == "__main__":
    main()
