"""Build ``ai/bid_table.json``, the hand-evaluation table ``hard`` bids from.

Reproducible: ``python -m ai.build_bid_table --deals 4000 --seed 7 --jobs 2``.  For
every simulated deal a random seat is made to bid each contract in turn (the others
pass), the deal is played out by four ``normal`` bots, and what it added to the bidding
team's score minus the defenders' (card points: bulgarian scores times ten) is filed
under the bidder's known cards' features (:func:`ai.bidding.features`).
"""

from __future__ import annotations

import argparse
import json
import random
from collections import defaultdict
from multiprocessing import Pool

from engine.actions import BID, PASS
from engine.deal import Phase
from engine.match import Match
from engine.options import Options

from .bidding import TABLE_PATH, contract_kind, known_cards, load_thresholds, table_key
from .normal import NormalBot

Sums = dict[str, list[float]]


def _force(match: Match, bidder: int, contract: int) -> None:
    """Drive the auction so that ``bidder`` names ``contract`` and everybody else passes."""
    deal = match.deal
    assert deal is not None
    while deal.phase == Phase.AUCTION:
        seat = match.current_player()
        call = BID + contract
        if seat != bidder or call not in match.legal_actions():
            call = PASS
        match.apply_action(call)


def simulate(args: tuple[str, int, int]) -> Sums:
    """Sums and counts per table key over ``count`` deals of one seed's stream."""
    variant, seed, count = args
    options = Options.make(variant)
    rng = random.Random(seed)
    bot = NormalBot()
    sums: Sums = defaultdict(lambda: [0.0, 0])
    for _ in range(count):
        deck = list(range(32))
        rng.shuffle(deck)
        dealer, bidder = rng.randrange(4), rng.randrange(4)
        for contract in options.contracts:
            match = Match(options, dealer=dealer, auto_deal=False)
            match.start_deal(deck)
            cards = known_cards(match.observation(bidder))
            _force(match, bidder, contract)
            deal = match.deal
            assert deal is not None
            if deal.contract != contract:  # a turned suit cannot be named in the second round
                continue
            while not deal.is_over:
                seat = match.current_player()
                assert seat is not None
                match.apply_action(bot.choose(match.observation(seat)))
            score = match.results[-1].score
            lead = (score[bidder & 1] - score[(bidder + 1) & 1]) * options.card_scale
            for key in (table_key(variant, contract, cards),
                        f"{variant}:{contract_kind(contract)}:all"):
                sums[key][0] += lead
                sums[key][1] += 1
    return dict(sums)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--deals", type=int, default=4000, help="deals per variant")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--jobs", type=int, default=1)
    args = parser.parse_args()
    chunks = 20
    tasks = [(variant, args.seed * 1000 + i, args.deals // chunks)
             for variant in load_thresholds() for i in range(chunks)]
    total: Sums = defaultdict(lambda: [0.0, 0])
    with Pool(args.jobs) as pool:
        for sums in pool.imap(simulate, tasks):
            for key, (s, n) in sums.items():
                total[key][0] += s
                total[key][1] += n
    table = {key: [round(s / n, 2), int(n)] for key, (s, n) in sorted(total.items())}
    command = (f"python -m ai.build_bid_table --deals {args.deals} --seed {args.seed} "
               f"--jobs {args.jobs}")
    write_table(command, table)
    print(f"wrote {len(table)} cells to {TABLE_PATH}")


def write_table(command: str, table: dict[str, list[float]]) -> None:
    """One cell per line, so that a rebuild's diff shows which cells moved; the
    thresholds (measured on the table's bids, bench/auction.py) are kept."""
    cells = ",\n".join(f"  {json.dumps(k)}: {json.dumps(v)}" for k, v in table.items())
    thresholds = json.dumps(load_thresholds())
    TABLE_PATH.write_text(f'{{"command": {json.dumps(command)},\n"thresholds": {thresholds},'
                          f'\n"table": {{\n{cells}\n}}}}\n')


if __name__ == "__main__":
    main()
