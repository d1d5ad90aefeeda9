"""Measures the match review (ai/review.py); figures in docs/analysis.md.

    python bench/analysis.py speed  [--samples 2 4 6]            # CPU per whole match
    python bench/analysis.py levels [--matches 10] [--deals 0]   # loss per level, grades

``speed`` plays one 151-point Bulgarian match of hard bots and reviews it whole at each
sample count (CPU seconds: the process's own time, so other load on the machine inflates
it little).  ``levels`` plays, per variant, ``--matches`` matches of each level (team 0:
easy, normal or hard) against hard (team 1), reviews team 0's decisions (the first
``--deals`` deals of each match, 0 for all) and prints the mean loss per decision with
its 95% interval over matches, per level; how often hard's choices are graded good; the mean loss
per kind of decision (pooled); and how many grades a second seed keeps.
"""

from __future__ import annotations

import argparse
import time
from collections import Counter
from typing import Any

from ai.arena import mean_ci
from ai.bot import LEVELS, make_bot
from ai.review import DEFAULT_SAMPLES, Decision, review
from engine.match import Match
from engine.options import Options
from engine.record import write_record

BOT_BUDGET_S = 0.3  # the hard bots' cap per decision while the matches are played


def play(variant: str, levels: tuple[str, str], seed: int, deals: int = 0) -> dict[str, Any]:
    """The record of a match of ``levels[0]`` (team 0) against ``levels[1]``, stopped
    after ``deals`` deals (0: played to the end)."""
    match = Match(Options.make(variant), seed=seed)
    bots = [make_bot(levels[s & 1], seed=seed * 4 + s, budget_s=BOT_BUDGET_S) for s in range(4)]
    while not match.is_over and not (deals and len(match.results) >= deals):
        seat = match.current_player()
        assert seat is not None
        match.apply_action(bots[seat].choose(match.observation(seat)), seat)
    record = write_record(match)
    if deals:
        record["deals"] = record["deals"][:deals]
    return record


def speed(samples: list[int], seed: int) -> None:
    record = play("bulgarian", ("hard", "hard"), seed)
    print(f"match: {len(record['deals'])} deals (seed {seed})")
    for n in samples:
        start = time.process_time()
        result = review(record, seed=seed, samples=n)
        cpu = time.process_time() - start
        print(f"samples {n:2d}: {cpu:6.1f} s CPU, {len(result.decisions)} decisions, "
              f"{1000 * cpu / len(result.decisions):.0f} ms per decision")


def levels(variants: list[str], matches: int, deals: int, samples: int, seed: int) -> None:
    for variant in variants:
        print(f"== {variant}: {matches} matches per level, deals "
              f"{deals or 'all'}, samples {samples}")
        for level in LEVELS:
            per_match: list[float] = []
            grades: Counter[str] = Counter()
            kind_loss: dict[str, float] = dict.fromkeys(("bid", "announce", "belot", "card"), 0.0)
            kind_count: Counter[str] = Counter()
            agree = total = 0
            for i in range(matches):
                record = play(variant, (level, "hard"), seed + i, deals)
                result = review(record, seed=seed, samples=samples)
                ours = [d for d in result.decisions if d.seat & 1 == 0]
                if not ours:
                    continue
                per_match.append(sum(d.loss for d in ours) / len(ours))
                grades.update(d.grade for d in ours)
                for d in ours:
                    kind_loss[d.kind] += d.loss
                    kind_count[d.kind] += 1
                if level == "hard":
                    again = review(record, seed=seed + 1, samples=samples)
                    a, t = _agreement(result.decisions, again.decisions)
                    agree, total = agree + a, total + t
            mean, low, high = mean_ci(per_match)
            n = sum(grades.values())
            shares = ", ".join(f"{g} {100 * grades[g] / n:.0f}%"
                               for g in ("good", "inaccuracy", "mistake", "blunder"))
            print(f"{level:6s}: mean loss {mean:6.2f} per decision "
                  f"[{low:.2f}, {high:.2f}] over {len(per_match)} matches, {n} decisions; "
                  f"{shares}")
            print("        by kind: " + ", ".join(
                f"{k} {kind_loss[k] / kind_count[k]:.1f} ({kind_count[k]})"
                for k in ("bid", "announce", "belot", "card") if kind_count[k]))
            if total:
                print(f"        grades kept by another seed: {agree}/{total} "
                      f"({100 * agree / total:.0f}%)")


def _agreement(a: tuple[Decision, ...], b: tuple[Decision, ...]) -> tuple[int, int]:
    """Decisions graded alike by two reviews of the same match (both judge the same
    decisions: which moments are decisions does not depend on the seed)."""
    return sum(1 for x, y in zip(a, b, strict=True) if x.grade == y.grade), len(a)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    s = sub.add_parser("speed")
    s.add_argument("--samples", type=int, nargs="+", default=[2, DEFAULT_SAMPLES, 8])
    s.add_argument("--seed", type=int, default=1)
    lv = sub.add_parser("levels")
    lv.add_argument("--variants", nargs="+", default=["bulgarian", "classic"])
    lv.add_argument("--matches", type=int, default=10)
    lv.add_argument("--deals", type=int, default=0)
    lv.add_argument("--samples", type=int, default=DEFAULT_SAMPLES)
    lv.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    if args.command == "speed":
        speed(args.samples, args.seed)
    else:
        levels(args.variants, args.matches, args.deals, args.samples, args.seed)


if __name__ == "__main__":
    main()
