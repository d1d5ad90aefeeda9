"""What a change to hard's calls is worth: ``python bench/auction.py --set HARD_SHIFT=8``.

Hard's calls as the code has them (A) against hard's calls with some of
:mod:`ai.bidding`'s constants set otherwise (B, ``--set NAME=VALUE``), in the arena's
duplicate deals (``ai.arena.deck_of``), card play equal on both sides:

* ``--opponents hard``: A's pair against B's pair, each deal played with A at team 0 and
  at team 1, as the arena plays it; the figure is A's lead per deal.
* ``--opponents normal``: A's pair and B's pair each against two normal bots, on both
  teams; the figure is A's lead per deal minus B's.

Every card is hard's, from ``--worlds`` deals solved with no time cap and seeded by seat
and deal alone, so that a deal whose auctions come out the same is played the same: such
a deal adds exactly 0 and is not played at all.  Only the deals where A and B call
differently cost a play-out, which makes a change that touches few auctions cheap to
measure, and its interval narrow: card play's luck cancels out.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from multiprocessing import Pool
from typing import Any

from ai import bidding, hard
from ai.arena import deck_of, mean_ci
from ai.bot import Bot
from ai.hard import HardBot
from ai.normal import NormalBot
from engine.actions import Action
from engine.deal import Phase
from engine.match import Match
from engine.observation import Observation
from engine.options import Options
from engine.variants import VARIANTS

Policy = Callable[[Observation], Action]
CHANGES: dict[str, float] = {}  # B's constants, set in each worker


@contextmanager
def changed() -> Iterator[None]:
    """ai.bidding's constants as B has them, for the duration of one call."""
    saved = {name: getattr(bidding, name) for name in CHANGES}
    for name, value in CHANGES.items():
        setattr(bidding, name, value)
    try:
        yield
    finally:
        for name, value in saved.items():
            setattr(bidding, name, value)


def b_call(obs: Observation) -> Action:
    with changed():
        return bidding.hard_call(obs)


def auction(options: Options, deck: list[int], dealer: int,
            calls: Sequence[Policy]) -> tuple[Match, list[Action]]:
    match = Match(options, dealer=dealer, auto_deal=False)
    deal = match.start_deal(deck)
    made = []
    while deal.phase == Phase.AUCTION:
        seat = deal.to_move
        call = calls[seat](match.observation(seat))
        match.apply_action(call, seat)
        made.append(call)
    return match, made


def team_lead(match: Match, players: list[Bot]) -> float:
    """Team 0's lead for the deal (card points), played out from the auction's end."""
    deal = match.deal
    assert deal is not None
    while not deal.is_over:
        seat = deal.to_move
        match.apply_action(players[seat].choose(match.observation(seat)), seat)
    result = match.results[-1]
    return (result.score[0] - result.score[1]) * match.options.card_scale


def players(normal: list[bool], seed: int, index: int) -> list[Bot]:
    """Fresh card players for one play: hard seeded by deal and seat, or normal."""
    return [NormalBot() if normal[s] else HardBot((seed * 1_000_003 + index) * 4 + s, 1e6)
            for s in range(4)]


def compare(setup: tuple[str, str, int, int]) -> tuple[float, int]:
    """Deal ``index``: A's lead, and in how many of its pairs of plays A and B called
    differently (the pairs that were played out)."""
    variant, opponents, seed, index = setup
    options = Options.make(variant)
    deck = deck_of(seed, index)
    a, b, other = bidding.hard_call, b_call, bidding.normal_call
    # Each pair: seats' calls in two plays, and the sign of team 0's lead for A.
    pairs: list[tuple[list[Policy], list[Policy], int]] = (
        [([a, b, a, b], [b, a, b, a], 1)] if opponents == "hard" else
        [([a, other, a, other], [b, other, b, other], 1),
         ([other, a, other, a], [other, b, other, b], -1)])
    lead = 0.0
    differed = 0
    for first_calls, second_calls, sign in pairs:
        first, first_made = auction(options, deck, index % 4, first_calls)
        second, second_made = auction(options, deck, index % 4, second_calls)
        if first_made == second_made:
            continue  # the same auction, so the same play: the two plays cancel
        differed += 1
        cards = [first_calls[s] is other for s in range(4)]  # True: normal plays the seat
        lead += sign * (team_lead(first, players(cards, seed, index))
                        - team_lead(second, players(cards, seed, index))) / 2
    return lead, differed


def _start(changes: dict[str, float], worlds: int) -> None:
    CHANGES.update(changes)
    hard.WORLDS = worlds


def parse_change(text: str) -> tuple[str, float]:
    name, _, value = text.partition("=")
    if not name.isupper() or not isinstance(getattr(bidding, name, None), int | float):
        raise argparse.ArgumentTypeError(f"not a numeric constant of ai.bidding: {name!r}")
    return name, float(value)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--variant", choices=list(VARIANTS), default="bulgarian")
    parser.add_argument("--opponents", choices=("hard", "normal"), default="hard")
    parser.add_argument("--set", type=parse_change, action="append", default=[],
                        metavar="NAME=VALUE", help="a constant of ai.bidding as B has it")
    parser.add_argument("--deals", type=int, default=400)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--worlds", type=int, default=10,
                        help="deals hard solves for each card (no time cap)")
    parser.add_argument("--jobs", type=int, default=2)
    args = parser.parse_args(argv)
    changes = dict(args.set)
    tasks = [(args.variant, args.opponents, args.seed, i) for i in range(args.deals)]
    with Pool(args.jobs, initializer=_start, initargs=(changes, args.worlds)) as pool:
        results = pool.map(compare, tasks)
    leads = [lead for lead, _ in results]
    mean, low, high = mean_ci(leads)
    differed = sum(1 for _, n in results if n)
    now = {name: getattr(bidding, name) for name in changes}
    print(f"{args.variant}, {args.deals} duplicate deals (seed {args.seed}), against "
          f"{args.opponents}: A {now} vs B {changes}")
    print(f"A's lead per deal {mean:+.2f} [{low:+.2f}, {high:+.2f}]; the auctions differed "
          f"in {differed} deals ({100 * differed / args.deals:.1f}%)")
    report: dict[str, Any] = {
        "variant": args.variant, "opponents": args.opponents, "seed": args.seed,
        "deals": args.deals, "worlds": args.worlds, "a": now, "b": changes,
        "mean": round(mean, 3), "ci95": [round(low, 3), round(high, 3)],
        "differed": differed, "leads": [round(x, 2) for x in leads]}
    print(json.dumps(report))


if __name__ == "__main__":
    main()
