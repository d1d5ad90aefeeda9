"""What hard's caution in the auction costs: ``python bench/bidding.py --deals 400``.

Four hard bots bid the arena's deals (``ai.arena.deck_of``).  For every deal they
throw in (everyone passed), each seat is then made to bid, at the turn where the table
valued it most, the contract it valued most, everyone else passing, and four hard bots
play it out: the bidder's team's score lead for the deal, as the arena counts it
(bulgarian times ten).  A forced contract that is made is a contract the auction did not
take although it would have been made.  Printed: deals thrown in, forced contracts made
and their mean lead, and the table value of each, so that a threshold can be read off.

``--threshold T`` bids with hard's calls at threshold T instead of the variant's
(``ai.bidding.hard_threshold``; the deals thrown in are then fewer).
"""

from __future__ import annotations

import argparse
import json
import statistics
from multiprocessing import Pool
from typing import Any

from ai import bidding
from ai.arena import deck_of
from ai.bidding import known_cards, open_contracts, table_value
from ai.bot import make_bot
from engine.actions import BID, PASS
from engine.deal import Phase
from engine.match import Match
from engine.options import Options
from engine.scoring import MADE
from engine.variants import VARIANTS


def forced(variant: str, seed: int, index: int, budget: float) -> list[dict[str, Any]]:
    """Deal ``index`` bid by hard; when thrown in, each seat's best contract played out."""
    options = Options.make(variant)
    deck = deck_of(seed, index)
    match = Match(options, dealer=index % 4, auto_deal=False)
    deal = match.start_deal(deck)
    best: dict[int, tuple[float, int, int]] = {}  # seat: (value, contract, turn)
    turn = 0
    while deal.phase == Phase.AUCTION:
        seat = deal.to_move
        obs = match.observation(seat)
        cards = known_cards(obs)
        for k in open_contracts(obs):
            value = table_value(cards, k, options)
            if seat not in best or value > best[seat][0]:
                best[seat] = (value, k, turn)
        match.apply_action(bidding.hard_call(obs), seat)
        turn += 1
    if not deal.thrown_in:
        return []
    rows = []
    for seat, (value, contract, at) in sorted(best.items()):
        rows.append({"seat": seat, "value": round(value, 2), "contract": contract,
                     **play_out(options, deck, index % 4, seat, contract, at, budget,
                                (seed * 1_000_003 + index) * 4 + seat)})
    return rows


def play_out(options: Options, deck: list[int], dealer: int, bidder: int, contract: int,
             at: int, budget: float, seed: int) -> dict[str, Any]:
    """``bidder`` bids ``contract`` at auction turn ``at``, the others pass; hard plays."""
    match = Match(options, dealer=dealer, auto_deal=False)
    deal = match.start_deal(deck)
    bots = [make_bot("hard", seed * 4 + s, budget) for s in range(4)]
    turn = 0
    while deal.phase == Phase.AUCTION:
        call = BID + contract if turn == at else PASS
        match.apply_action(call if call in match.legal_actions() else PASS)
        turn += 1
    while not deal.is_over:
        seat = deal.to_move
        match.apply_action(bots[seat].choose(match.observation(seat)), seat)
    result = match.results[-1]
    scale = options.card_scale
    team = bidder & 1
    return {"made": result.outcome == MADE,
            "lead": (result.score[team] - result.score[1 - team]) * scale}


def _forced(args: tuple[str, int, int, float]) -> list[dict[str, Any]]:
    return forced(*args)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--variant", choices=list(VARIANTS), default="bulgarian")
    parser.add_argument("--deals", type=int, default=400)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--budget", type=float, default=0.2,
                        help="hard's time cap per decision in the play-outs, seconds")
    parser.add_argument("--threshold", type=float,
                        help="hard's threshold (default: the variant's)")
    parser.add_argument("--jobs", type=int, default=2)
    args = parser.parse_args(argv)
    if args.threshold is None:
        args.threshold = bidding.hard_threshold(Options.make(args.variant))
    tasks = [(args.variant, args.seed, i, args.budget) for i in range(args.deals)]
    shift = args.threshold - bidding.load_thresholds()[args.variant]
    with Pool(args.jobs, initializer=_set_shift, initargs=(shift,)) as pool:
        per_deal = pool.map(_forced, tasks)
    rows = [row for deal in per_deal for row in deal]
    thrown = sum(1 for deal in per_deal if deal)
    print(f"{args.variant}, {args.deals} deals (seed {args.seed}), hard bids at "
          f"threshold {args.threshold:g}: {thrown} thrown in ({100 * thrown / args.deals:.1f}%)")
    if rows:
        made = [r for r in rows if r["made"]]
        print(f"each seat's best contract forced in those deals: {len(made)}/{len(rows)} made "
              f"({100 * len(made) / len(rows):.1f}%), mean lead "
              f"{statistics.mean(r['lead'] for r in rows):+.1f} per contract")
        gained = [r for r in rows if r["lead"] > 0]
        print(f"  of which {len(gained)} gained their team points: "
              f"{sum(r['lead'] for r in gained) / len(rows):+.1f} per contract, and the "
              f"others lost {sum(r['lead'] for r in rows if r['lead'] <= 0) / len(rows):+.1f}")
        for low, high in ((-99, 0), (0, 4), (4, 8)):
            band = [r for r in rows if low <= r["value"] < high]
            if band:
                print(f"  table value in [{low}, {high}): {len(band)} contracts, "
                      f"{100 * sum(r['made'] for r in band) / len(band):.0f}% made, "
                      f"mean lead {statistics.mean(r['lead'] for r in band):+.1f}")
    print(json.dumps({"variant": args.variant, "deals": args.deals, "seed": args.seed,
                      "threshold": args.threshold, "thrown_in": thrown, "forced": rows}))


def _set_shift(shift: float) -> None:
    bidding.HARD_SHIFT = shift


if __name__ == "__main__":
    main()
