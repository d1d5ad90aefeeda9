"""Engine speed on one core: random legal deals through the checked public API and the
unchecked search path, per second of this process's CPU time (so that other load on the
machine skews it less).  Prints figures; asserts nothing.  ``make bench``."""

from __future__ import annotations

import argparse
import platform
import random
import time

from engine import Match, Options
from engine.cards import card_list
from engine.deal import Deal


def checked(variant: str, seconds: float) -> tuple[int, int, float]:
    """Whole random matches through legal_actions/apply_action; played and thrown-in deals."""
    rng = random.Random(1)
    options = Options.make(variant)
    played = thrown = 0
    start = time.process_time()
    seed = 0
    while time.process_time() - start < seconds:
        match = Match(options, seed=seed)
        seed += 1
        while match.winner is None:
            actions = match.legal_actions()
            match.apply_action(actions[int(rng.random() * len(actions))])
        thrown += sum(d.thrown_in for d in match.deals)
        played += len(match.deals) - sum(d.thrown_in for d in match.deals)
    return played, thrown, time.process_time() - start


def dealt_for_play(variant: str, seed: int) -> Deal:
    """A deal whose auction is over (eldest takes the first contract offered)."""
    options = Options.make(variant)
    rng = random.Random(seed)
    deck = list(range(32))
    rng.shuffle(deck)
    deal = Deal(options, seed % 4, deck)
    deal.apply(deal.legal_calls()[0] if variant == "classic" else 64 + rng.randrange(6))
    while deal.phase == "auction":
        deal.apply(70)
    return deal


def search(variant: str, seconds: float) -> tuple[int, float]:
    """Random card play with legal_card_mask/push, then every card popped: one deal each."""
    rng = random.Random(2)
    deals = [dealt_for_play(variant, s) for s in range(64)]
    count = 0
    start = time.process_time()
    while time.process_time() - start < seconds:
        deal = deals[count & 63]
        for _ in range(32):
            cards = card_list(deal.legal_card_mask())
            deal.push(cards[int(rng.random() * len(cards))])
        for _ in range(32):
            deal.pop()
        count += 1
    return count, time.process_time() - start


def calibration() -> float:
    """Millions of plain loop additions a CPU second: how fast this machine is right now."""
    start = time.process_time()
    total = 0
    for i in range(2_000_000):
        total += i
    return 2.0 / (time.process_time() - start)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seconds", type=float, default=5.0, help="per measurement")
    args = parser.parse_args()
    print(f"python {platform.python_version()} on {platform.machine()}, one core; "
          f"calibration: {calibration():.1f} M loop additions/s")
    for variant in ("bulgarian", "classic"):
        played, thrown, elapsed = checked(variant, args.seconds)
        print(f"{variant:9}  checked API: {played / elapsed:8.0f} played deals/s "
              f"(+{thrown / elapsed:.0f} thrown-in/s)")
        count, elapsed = search(variant, args.seconds)
        print(f"{variant:9}  search path: {count / elapsed:8.0f} deals/s (32 pushes + 32 pops)")


if __name__ == "__main__":
    main()
