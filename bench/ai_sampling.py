"""What hard pays per deal besides the solve: ``python bench/ai_sampling.py``.

For every card decision of some arena deals played by normal bots (cards chosen after the
first trick's lead, two or more legal cards), prints the time to draw one deal of the
hidden cards (``ai.inference.sample``), to weigh it by the plays (one ``PlayModel`` per
decision weighing all its deals, as hard does), per deal; and to build a solver (its
cache) per decision, fresh and reusing the last one's search (``Solver(reuse=True)``).
Hard draws and weighs ``CANDIDATES`` deals for every deal it solves.
"""

from __future__ import annotations

import argparse
import random
import time

from ai.arena import deck_of
from ai.bot import make_bot
from ai.inference import infer, sample
from ai.likelihood import CANDIDATES, PlayModel
from ai.solver import Solver
from engine.match import Match
from engine.observation import Observation
from engine.options import Options


def decisions(variant: str, deals: int, seed: int) -> list[Observation]:
    """The card decisions (two legal cards or more, a trick already begun) of ``deals``."""
    options = Options.make(variant)
    found = []
    for index in range(deals):
        match = Match(options, dealer=index % 4, auto_deal=False)
        deal = match.start_deal(deck_of(seed, index))
        bots = [make_bot("normal", seat) for seat in range(4)]
        while not deal.is_over:
            seat = deal.to_move
            obs = match.observation(seat)
            cards = [a for a in obs.legal_actions if a < 32]
            if len(cards) > 1 and len(cards) == len(obs.legal_actions) and (
                    obs.tricks or obs.trick):
                found.append(obs)
            match.apply_action(bots[seat].choose(obs), seat)
    return found


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--variant", default="classic")
    parser.add_argument("--deals", type=int, default=6)
    parser.add_argument("--seed", type=int, default=5)
    parser.add_argument("--draws", type=int, default=10 * CANDIDATES,
                        help="deals drawn and weighed per decision")
    args = parser.parse_args(argv)
    found = decisions(args.variant, args.deals, args.seed)
    draw = weigh = build = reuse = 0.0
    for obs in found:
        knowledge, model, rng = infer(obs), PlayModel(obs), random.Random(1)
        for _ in range(args.draws):
            start = time.perf_counter()
            hands = sample(knowledge, rng)
            middle = time.perf_counter()
            model.weight(hands)
            draw += middle - start
            weigh += time.perf_counter() - middle
        assert obs.contract is not None
        start = time.perf_counter()
        Solver(obs.contract, obs.options)
        middle = time.perf_counter()
        Solver(obs.contract, obs.options, reuse=True)
        build += middle - start
        reuse += time.perf_counter() - middle
    n = len(found) * args.draws
    print(f"{args.variant}: {len(found)} decisions of {args.deals} deals, "
          f"{args.draws} deals drawn each")
    print(f"draw a deal {1000 * draw / n:.3f} ms, weigh it {1000 * weigh / n:.3f} ms, "
          f"build a solver {1000 * build / len(found):.2f} ms a decision "
          f"({1000 * reuse / len(found):.3f} ms reusing the last one's search)")


if __name__ == "__main__":
    main()
