"""Measures the match review (ai/review.py); figures in docs/analysis.md.

    python bench/analysis.py speed  [--samples 2 4 6]            # CPU per whole match
    python bench/analysis.py levels [--matches 10] [--deals 0] [--jobs 2] [--bids] --out F
    python bench/analysis.py summary F                           # the figures of a run
    python bench/analysis.py stability [--matches 3] [--level hard] --out F

``stability`` plays ``--matches`` whole matches (``--variant``, the four seats at one
level), keeps their records in ``--out`` (one JSON line each: a run again reviews the
same matches, playing only those missing), reviews each whole with two seeds and
prints how many grades the second keeps, per kind and for the mistakes and blunders, and
the CPU of one review per match, with the machine's load average.

``speed`` plays one 151-point Bulgarian match of hard bots and reviews it whole at each
sample count (CPU seconds: the process's own time, so other load on the machine inflates
it little).  ``levels`` plays, per variant, ``--matches`` matches of each level (team 0:
easy, normal or hard) against hard (team 1), reviews team 0's decisions (the first
``--deals`` deals of each match, 0 for all; match ``i`` has the same seed for every
level, so their first deals are dealt the same cards) and prints, per level, the mean loss
per decision with its 95% interval over matches, in all and per kind; the levels' paired
differences; the same in one common mix of kinds (calls, cards...: every level's
decisions weighted alike, :func:`mix_weighted_loss`); the grades' shares; and how many of
hard's grades a second seed keeps.
``--bids`` reviews the calls only, and plays the last reviewed deal only to the end of
its auction (what the calls are judged on), at a small part of the cost.
"""

from __future__ import annotations

import argparse
import itertools
import json
import math
import multiprocessing
import os
import random
import time
from collections import Counter
from pathlib import Path
from typing import Any

from ai.arena import mean_ci, percentile
from ai.bot import LEVELS, make_bot
from ai.review import DEFAULT_SAMPLES, KINDS, grade_of, review
from engine.deal import Phase
from engine.match import Match
from engine.options import Options
from engine.record import write_record

BOT_BUDGET_S = 0.3  # the hard bots' cap per decision while the matches are played
BOOTSTRAP = 2000  # resamples of the matches for the mix-weighted mean's interval
GRADES = ("good", "inaccuracy", "mistake", "blunder")


def play(variant: str, levels: tuple[str, str], seed: int, deals: int = 0,
         auction: bool = False) -> dict[str, Any]:
    """The record of a match of ``levels[0]`` (team 0) against ``levels[1]``, stopped
    after ``deals`` deals (0: played to the end), or (``auction``) at the end of the
    last one's auction."""
    match = Match(Options.make(variant), seed=seed)
    bots = [make_bot(levels[s & 1], seed=seed * 4 + s, budget_s=BOT_BUDGET_S) for s in range(4)]
    while not match.is_over and not (deals and len(match.results) >= deals):
        if auction and len(match.deals) == deals and match.deals[-1].phase != Phase.AUCTION:
            break
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


def levels(variants: list[str], teams: list[str], matches: int, deals: int, samples: int,
           seed: int, jobs: int, out: Path, bids: bool = False) -> None:
    """Play and review every (variant, match, level) not yet in ``out`` (one JSON line
    each, so that a long run can be stopped and resumed), on ``jobs`` processes; then
    print the figures from the whole file."""
    done = {(r["variant"], r["match"], r["level"]) for r in _rows(out)}
    tasks = [(v, seed + i, level, deals, samples, seed, bids) for v in variants
             for i in range(matches) for level in teams if (v, seed + i, level) not in done]
    print(f"{len(tasks)} reviews to run on {jobs} processes, {len(done)} already in {out}",
          flush=True)
    with multiprocessing.get_context("spawn").Pool(jobs) as pool, out.open("a") as f:
        for row in pool.imap_unordered(_judge_level, tasks):
            f.write(json.dumps(row) + "\n")
            f.flush()
    summary(out)


def _judge_level(task: tuple[str, int, str, int, int, int, bool]) -> dict[str, Any]:
    """One match of ``level`` (team 0) against hard: team 0's decisions (calls only if
    ``bids``), and for hard a second review with another seed, to count the grades it
    keeps."""
    variant, match, level, deals, samples, seed, bids = task
    start = time.process_time()
    record = play(variant, (level, "hard"), match, deals, auction=bids)
    kinds = ("bid",) if bids else KINDS
    result = review(record, seed=seed, samples=samples, seats=(0, 2), kinds=kinds)
    row: dict[str, Any] = {
        "variant": variant, "match": match, "level": level,
        "decisions": [[d.kind, d.loss, d.hindsight_loss, d.grade] for d in result.decisions]}
    if level == "hard":
        again = review(record, seed=seed + 1, samples=samples, seats=(0, 2), kinds=kinds)
        row["other_seed"] = [[d.kind, d.loss, d.grade] for d in again.decisions]
    row["cpu"] = time.process_time() - start
    return row


def stability(variant: str, level: str, matches: int, seed: int, samples: int,
              out: Path, jobs: int = 1) -> None:
    """Play the matches not yet in ``out`` (their records kept there), review each whole
    with seeds ``seed`` and ``seed + 1``, and print the grades the second keeps."""
    have = {r["match"] for r in _rows(out) if r["variant"] == variant and r["level"] == level}
    with out.open("a") as f:
        for match in range(seed, seed + matches):
            if match not in have:
                record = play(variant, (level, level), match)
                f.write(json.dumps({"variant": variant, "level": level, "match": match,
                                    "record": record}) + "\n")
                f.flush()
    rows = [r for r in _rows(out) if r["variant"] == variant and r["level"] == level
            and seed <= r["match"] < seed + matches]
    print(f"load average before: {_load()}", flush=True)
    scale = Options.make(variant).card_scale  # losses are in match points, grades in card's
    tasks = [(row["record"], s, samples) for row in rows for s in (seed, seed + 1)]
    with multiprocessing.get_context("spawn").Pool(jobs) as pool:
        done = pool.map(_review_cpu, tasks)
    pairs: list[tuple[Any, Any]] = []
    for row, (first, cpu1), (second, cpu2) in zip(rows, done[::2], done[1::2], strict=True):
        mine = list(zip(first.decisions, second.decisions, strict=True))
        pairs += mine
        print(f"match {row['match']}: {len(row['record']['deals'])} deals, {len(mine)} "
              f"decisions, CPU {cpu1:.1f} s and {cpu2:.1f} s, grades kept "
              f"{_kept(mine, scale)[0]}/{len(mine)}", flush=True)
    print(f"load average after: {_load()}", flush=True)
    for kind in ("all", *KINDS):
        some = [(a, b) for a, b in pairs if kind in ("all", a.kind)]
        if some:
            kept, plain = _kept(some, scale)
            print(f"{kind:8s}: {len(some):4d} decisions, grades kept {kept} "
                  f"({100 * kept / len(some):.1f}%); by the loss alone {plain} "
                  f"({100 * plain / len(some):.1f}%)")
    serious = [(a, b) for a, b in pairs if {a.grade, b.grade} & {"mistake", "blunder"}]
    both = sum(1 for a, b in serious if {a.grade, b.grade} <= {"mistake", "blunder"})
    print(f"mistakes or blunders by either seed: {len(serious)}, by both: {both}; "
          f"grades: {dict(Counter(a.grade for a, _ in pairs))}")


def _review_cpu(task: tuple[dict[str, Any], int, int]) -> tuple[Any, float]:
    """A whole review and the CPU seconds it took (its process's own)."""
    record, seed, samples = task
    start = time.process_time()
    result = review(record, seed=seed, samples=samples)
    return result, time.process_time() - start


def _kept(pairs: list[tuple[Any, Any]], scale: int) -> tuple[int, int]:
    """How many decisions the two reviews grade alike; and how many they would if each
    were graded by its loss alone, without its margin (the rule before the margin)."""
    kept = sum(1 for a, b in pairs if a.grade == b.grade)
    plain = sum(1 for a, b in pairs
                if grade_of(a.kind, a.loss * scale) == grade_of(b.kind, b.loss * scale))
    return kept, plain


def _load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def _rows(path: Path) -> list[dict[str, Any]]:
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text().splitlines() if line]


def summary(path: Path) -> None:
    """Per variant and level: mean loss per decision with its 95% interval over matches,
    per kind, the grades' shares; the levels' paired differences (the same matches'
    first deals: same cards); how many grades another seed keeps, per kind."""
    rows = _rows(path)
    for variant in sorted({r["variant"] for r in rows}):
        mine = [r for r in rows if r["variant"] == variant]
        by = {(r["level"], r["match"]): r["decisions"] for r in mine}
        n_matches = len({r["match"] for r in mine})
        cpu = sum(r["cpu"] for r in mine)
        print(f"== {variant}: {n_matches} matches, {cpu / 60:.0f} min of CPU in all")
        for level in LEVELS:
            ds = [d for (lv, _), v in by.items() if lv == level for d in v]
            if not ds:
                continue
            grades: Counter[str] = Counter(d[3] for d in ds)
            shares = ", ".join(f"{g} {100 * grades[g] / len(ds):.0f}%" for g in GRADES)
            print(f"{level:6s}: {len(ds)} decisions; {shares}")
            for kind in ("all", *KINDS):
                means = _per_match(by, level, kind)
                if means:
                    m, lo, hi = mean_ci(list(means.values()))
                    print(f"        {kind:8s} mean loss {m:6.2f} [{lo:6.2f}, {hi:6.2f}] "
                          f"over {len(means)} matches")
        for a, b in itertools.pairwise(LEVELS):
            for kind in ("all", *KINDS):
                ma, mb = _per_match(by, a, kind), _per_match(by, b, kind)
                both = sorted(ma.keys() & mb.keys())
                if len(both) > 1:
                    m, lo, hi = mean_ci([ma[i] - mb[i] for i in both])
                    print(f"{a} - {b} {kind:8s}: {m:+6.2f} [{lo:+6.2f}, {hi:+6.2f}] "
                          f"(paired over {len(both)} matches)")
        _print_mix_weighted(by)
        for kind in KINDS:
            losses = sorted(d[1] for (lv, _), v in by.items() if lv == "hard"
                            for d in v if d[0] == kind)
            if losses:
                print(f"hard, {kind} losses: {len(losses)}, quantiles " + ", ".join(
                    f"p{q} {percentile(losses, q):.0f}" for q in (50, 75, 90, 95, 99))
                      + f", max {losses[-1]:.0f}")
        again = [(d, e) for r in mine if "other_seed" in r
                 for d, e in zip(r["decisions"], r["other_seed"], strict=True)]
        for kind in ("all", *KINDS):
            pairs = [(d, e) for d, e in again if kind in ("all", d[0])]
            if pairs:
                kept = sum(1 for d, e in pairs if d[3] == e[2])
                print(f"hard, grades kept by another seed, {kind:8s}: {kept}/{len(pairs)} "
                      f"({100 * kept / len(pairs):.0f}%)")


def _per_match(by: dict[tuple[str, int], list[list[Any]]], level: str,
               kind: str) -> dict[int, float]:
    """Per match, the level's mean loss per decision (of one kind, or all)."""
    out = {}
    for (lv, match), decisions in by.items():
        losses = [d[1] for d in decisions if lv == level and kind in ("all", d[0])]
        if losses:
            out[match] = sum(losses) / len(losses)
    return out


def kind_mix(by: dict[tuple[str, int], list[list[Any]]]) -> dict[str, float]:
    """Each kind's share of all the decisions in ``by``, every level's together."""
    kinds = Counter(d[0] for v in by.values() for d in v)
    total = sum(kinds.values())
    return {kind: n / total for kind, n in kinds.items()}


def mix_weighted_loss(by: dict[tuple[str, int], list[list[Any]]], level: str,
                      matches: list[int], mix: dict[str, float]) -> float:
    """The level's mean loss per decision over ``matches`` (a match may come more than
    once), as if its decisions came in the kinds' shares ``mix``: each kind's mean loss
    weighted by its share (kinds the level never faced there are left out).

    A level's plain mean mixes its own shares of calls and cards, and a call weighs as
    much as a few cards: a level whose first deals hold more calls looks worse for that
    alone.  In one common mix, levels are compared decision kind by decision kind."""
    loss: Counter[str] = Counter()
    count: Counter[str] = Counter()
    for m in matches:
        for d in by.get((level, m), ()):
            loss[d[0]] += d[1]
            count[d[0]] += 1
    present = [kind for kind in mix if count[kind]]
    if not present:
        return math.nan
    return (sum(mix[kind] * loss[kind] / count[kind] for kind in present)
            / sum(mix[kind] for kind in present))


def _print_mix_weighted(by: dict[tuple[str, int], list[list[Any]]]) -> None:
    """:func:`mix_weighted_loss` per level and step, in all levels' common mix, over
    the matches every level played, with intervals from resampling them (the same
    resamples for both levels of a step: paired)."""
    mix = kind_mix(by)
    levels = [lv for lv in LEVELS if any(lv == level for level, _ in by)]
    matches = sorted(set.intersection(*({m for lv, m in by if lv == level} for level in levels)))
    rng = random.Random(0)
    resamples = [rng.choices(matches, k=len(matches)) for _ in range(BOOTSTRAP)]
    point = {level: mix_weighted_loss(by, level, matches, mix) for level in levels}
    spread = {level: [mix_weighted_loss(by, level, s, mix) for s in resamples]
              for level in levels}
    print("mix-weighted (" + ", ".join(f"{k} {100 * w:.0f}%" for k, w in mix.items()) + ")")
    for level in levels:
        print(f"        {level:6s} mean loss {_with_interval(point[level], spread[level])}")
    for a, b in itertools.pairwise(levels):
        diffs = [x - y for x, y in zip(spread[a], spread[b], strict=True)]
        print(f"{a} - {b} mix-weighted: {_with_interval(point[a] - point[b], diffs)}")


def _with_interval(value: float, resampled: list[float]) -> str:
    ordered = sorted(resampled)
    return (f"{value:+6.2f} [{percentile(ordered, 2.5):+6.2f}, "
            f"{percentile(ordered, 97.5):+6.2f}]")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    s = sub.add_parser("speed")
    s.add_argument("--samples", type=int, nargs="+", default=[2, DEFAULT_SAMPLES, 8])
    s.add_argument("--seed", type=int, default=1)
    lv = sub.add_parser("levels")
    lv.add_argument("--variants", nargs="+", default=["bulgarian", "classic"])
    lv.add_argument("--levels", nargs="+", default=list(LEVELS), choices=LEVELS)
    lv.add_argument("--matches", type=int, default=10)
    lv.add_argument("--deals", type=int, default=0)
    lv.add_argument("--samples", type=int, default=DEFAULT_SAMPLES)
    lv.add_argument("--seed", type=int, default=1)
    lv.add_argument("--jobs", type=int, default=1)
    lv.add_argument("--bids", action="store_true", help="review the calls only")
    lv.add_argument("--out", type=Path, required=True, help="the JSON lines file to append to")
    st = sub.add_parser("stability")
    st.add_argument("--variant", default="bulgarian")
    st.add_argument("--level", default="hard", choices=LEVELS)
    st.add_argument("--matches", type=int, default=3)
    st.add_argument("--samples", type=int, default=DEFAULT_SAMPLES)
    st.add_argument("--seed", type=int, default=1)
    st.add_argument("--jobs", type=int, default=1)
    st.add_argument("--out", type=Path, required=True, help="the JSON lines file of records")
    sm = sub.add_parser("summary")
    sm.add_argument("out", type=Path)
    args = parser.parse_args(argv)
    if args.command == "speed":
        speed(args.samples, args.seed)
    elif args.command == "levels":
        levels(args.variants, args.levels, args.matches, args.deals, args.samples, args.seed,
               args.jobs, args.out, args.bids)
    elif args.command == "stability":
        stability(args.variant, args.level, args.matches, args.seed, args.samples, args.out,
                  args.jobs)
    else:
        summary(args.out)


if __name__ == "__main__":
    main()
