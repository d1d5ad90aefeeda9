"""Engine speed on one core: random legal deals through the checked public API and the
unchecked search path, per second of this process's CPU time (so that other load on the
machine skews it less), what reading match records costs on top of the engine, and record
replay against the plain rules reference.  Prints figures; asserts nothing but that the
reference and the engine report the same.  ``make bench``."""

from __future__ import annotations

import argparse
import platform
import random
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # bench, tests

from bench.machine import calibration
from engine import Match, Options, replay, write_record
from engine.actions import is_contract
from engine.cards import card_list
from engine.deal import Deal
from engine.record import replay_report
from engine.variants import VARIANTS
from tests.reference import reference_report

REFERENCE_VARIANTS = ("bulgarian", "classic")  # the rules tests/reference.py knows


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
    """A deal whose auction is over (eldest names a contract open to it at random)."""
    options = Options.make(variant)
    rng = random.Random(seed)
    deck = list(range(32))
    rng.shuffle(deck)
    deal = Deal(options, seed % 4, deck)
    deal.apply(rng.choice([call for call in deal.legal_calls() if is_contract(call)]))
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


def random_matches(deals: int, variants: tuple[str, ...] = tuple(VARIANTS)) -> list[Match]:
    """Random matches at each of ``variants``' highest target, in turn, ``deals`` deals in
    all: a match ends at its target, so these are the longest records the options allow
    (about 40 deals in bulgarian, 110 in classic); the last one stops where the count is
    reached."""
    matches: list[Match] = []
    left = deals
    while left:
        variant = variants[len(matches) % len(variants)]
        rng = random.Random(len(matches))
        match = Match(Options.make(variant, target_score=VARIANTS[variant].max_target()),
                      seed=len(matches))
        while not match.is_over and len(match.deals) <= left:
            actions = match.legal_actions()
            match.apply_action(actions[int(rng.random() * len(actions))])
        if len(match.deals) > left:  # the deal just dealt is one too many
            match.deals.pop()
        matches.append(match)
        left -= len(match.deals)
    return matches


def replay_all(records: list[dict[str, Any]]) -> None:
    for record in records:
        replay(record)


def apply_all(matches: list[Match]) -> None:
    """What replay does without the record: the same decks and actions, applied checked."""
    for played in matches:
        match = Match(played.options, dealer=played.first_dealer, auto_deal=False)
        for deal in played.deals:
            match.start_deal(deal.deck)
            for seat, action in deal.history:
                match.apply_action(action, seat)


def record_reading(deals: int, rounds: int) -> tuple[int, float, float, float]:
    """Records of ``deals`` deals: the median CPU seconds of ``replay`` (JSON already
    parsed), of the engine alone on the same actions, and of their difference in each
    round (the reading: alternated rounds, so that a change of machine speed hits both)."""
    matches = random_matches(deals)
    records = [write_record(m) for m in matches]
    replayed, applied = [], []
    for _ in range(rounds):
        start = time.process_time()
        replay_all(records)
        replayed.append(time.process_time() - start)
        start = time.process_time()
        apply_all(matches)
        applied.append(time.process_time() - start)
    reading = statistics.median(r - a for r, a in zip(replayed, applied, strict=True))
    return len(records), statistics.median(replayed), statistics.median(applied), reading


def against_reference(deals: int, rounds: int) -> tuple[float, float, float]:
    """Records of ``deals`` deals (JSON already parsed) replayed to their report, by
    ``replay`` + ``replay_report`` and by the rules reference (tests/reference.py: the same
    rules on card names, every action checked), in turn ``rounds`` times: the median deals
    per CPU second of each, and the median of the rounds' ratios (each round's two
    measurements a moment apart, so that a change of machine speed hits both).  Bulgarian
    and classic only: the reference has no coinche."""
    records = [write_record(m) for m in random_matches(deals, REFERENCE_VARIANTS)]
    if any(reference_report(r) != replay_report(replay(r)) for r in records):
        raise AssertionError("the reference and the engine report differently")
    engine, reference = [], []
    for _ in range(rounds):
        start = time.process_time()
        for r in records:
            replay_report(replay(r))
        engine.append(deals / (time.process_time() - start))
        start = time.process_time()
        for r in records:
            reference_report(r)
        reference.append(deals / (time.process_time() - start))
    ratio = statistics.median(e / r for e, r in zip(engine, reference, strict=True))
    return statistics.median(engine), statistics.median(reference), ratio


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seconds", type=float, default=5.0, help="per measurement")
    parser.add_argument("--record-deals", type=int, default=3000,
                        help="deals in the records replayed")
    parser.add_argument("--rounds", type=int, default=9, help="record replays (median)")
    parser.add_argument("--records-only", action="store_true",
                        help="measure record reading and replay only")
    args = parser.parse_args()
    print(f"python {platform.python_version()} on {platform.machine()}, one core; "
          f"calibration: {calibration():.1f} M loop additions/s")
    count, replayed, applied, reading = record_reading(args.record_deals, args.rounds)
    print(f"records    {args.record_deals} deals in {count} records, CPU s, medians of "
          f"{args.rounds}: replay {replayed:.3f}, engine alone {applied:.3f}, "
          f"reading (paired difference) {reading:.3f}")
    engine, reference, ratio = against_reference(args.record_deals, args.rounds)
    print(f"replay     replay + replay_report {engine:,.0f} deals/s, rules reference "
          f"{reference:,.0f} deals/s: x{ratio:.2f} (medians of {args.rounds})")
    if args.records_only:
        return
    for variant in VARIANTS:
        played, thrown, elapsed = checked(variant, args.seconds)
        print(f"{variant:9}  checked API: {played / elapsed:8.0f} played deals/s "
              f"(+{thrown / elapsed:.0f} thrown-in/s)")
        count, elapsed = search(variant, args.seconds)
        print(f"{variant:9}  search path: {count / elapsed:8.0f} deals/s (32 pushes + 32 pops)")


if __name__ == "__main__":
    main()
