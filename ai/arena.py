"""Duplicate-deal arena: ``python -m ai.arena --variant bulgarian --a hard --b normal``.

Each deal is played twice from the same deck and dealer, the two bots swapping seats,
so the luck of the cards cancels out.  A deal's figure for A is the mean over its two
plays of what the deal added to A's team score minus B's (``bulgarian`` scores times
ten, so that both variants count in card points), with no carry-in.  The last line
with ``--json`` is one JSON object: deals, mean, ci95, elo, success, decision_ms.

Besides the levels, the arena has ``pimc``: the plain perfect-information Monte-Carlo
player the hard level must beat (issue #18), and ``colver``, an outside engine
(:mod:`ai.sparring`): in classic its information-set tree search plays the cards; in
coinche (under the ``colver`` preset) its own agent bids and plays.  ``pimc``, and colver
in classic, bid as hard does, so that a duplicate deal against hard compares card play.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from multiprocessing import Pool
from typing import Any

from engine.cards import Card
from engine.match import Match
from engine.observation import Observation
from engine.options import Options
from engine.scoring import MADE, REDEAL
from engine.variants import DEFAULT_VARIANT, VARIANTS

from .bot import LEVELS, Bot, make_bot
from .hard import DEFAULT_BUDGET_S, SAFETY, HardBot, Scorer
from .inference import infer_facts
from .normal import normal_card
from .plot import running_mean_svg
from .solver import Solver
from .view import View

PIMC = "pimc"
COLVER = "colver"
PLAYERS = (*LEVELS, PIMC, COLVER)
# The rules colver plays, per variant it can sit at: in classic, no compulsory
# under-trump, whoever ruffed (tests/test_ai_sparring.py); in coinche, its preset.
COLVER_RULES: dict[str, dict[str, Any]] = {
    "classic": {"undertrump_on_opponent_ruff": "optional", "partner_ruff_no_undertrump": False},
    "coinche": {"preset": "colver"},
}
PIMC_WORLDS = 20  # pimc's deals a decision unless told (``--pimc-worlds``)
EQUAL = "equal"
# ``--pimc-worlds equal``: pilot deals per round of the calibration, rounds, most worlds.
PILOT_DEALS = 4
PILOT_ROUNDS = 3
MOST_WORLDS = 2000
PILOT_SEED = 1_000_000  # the pilot deals are seed + this's


class PimcBot(HardBot):
    """Plain perfect-information Monte Carlo, the baseline of issue #18: ``worlds``
    deals consistent with the rules' hard facts (voids, trump ceilings, announced cards:
    :func:`ai.inference.infer`) but not with the auction's soft evidence (each card to a
    seat that may hold it in proportion to its free room: uniform but for the facts),
    each solved exactly and scored as hard scores it, the card with the best total
    played; the same time cap as hard, the same calls (hard's: only the card differs)."""

    def __init__(self, seed: int | None = None, budget_s: float = DEFAULT_BUDGET_S,
                 worlds: int = PIMC_WORLDS) -> None:
        super().__init__(seed, budget_s)
        self.worlds = worlds

    def card(self, obs: Observation, view: View) -> Card:
        fallback = normal_card(view, obs.declarer)
        if view.legal & (view.legal - 1) == 0:
            return fallback
        knowledge = infer_facts(obs)
        solver = Solver(view.contract, obs.options, 8,
                        time.perf_counter() + self.budget_s * SAFETY, reuse=True)
        totals, done = self._average(obs, view, knowledge, None, Scorer(obs), solver,
                                     self.worlds)
        return max(totals, key=totals.__getitem__) if done else fallback


def player(name: str, seed: int, budget_s: float, pimc_worlds: int = PIMC_WORLDS) -> Bot:
    """A level of :func:`ai.bot.make_bot`, ``pimc`` (of ``pimc_worlds``) or ``colver``."""
    if name == PIMC:
        return PimcBot(seed, budget_s, pimc_worlds)
    if name == COLVER:
        from .sparring import ColverBot  # an outside package, imported only when asked for

        return ColverBot(seed, budget_s)
    return make_bot(name, seed, budget_s)


@dataclass(frozen=True, slots=True)
class Setup:
    variant: str
    a: str
    b: str
    seed: int
    budget_s: float
    preset: str | None = None  # a variant's named rules (coinche), else its defaults
    pimc_worlds: int = PIMC_WORLDS

    def options(self) -> Options:
        """The rules of the match: colver's wherever it sits, else the preset's."""
        if COLVER in (self.a, self.b):
            return Options.make(self.variant, **COLVER_RULES[self.variant])
        return Options.make(self.variant, **({} if self.preset is None
                                             else {"preset": self.preset}))


@dataclass(slots=True)
class DealOutcome:
    """One duplicate deal: A's lead, bids and makes per bot, decision times per level."""

    lead: float
    bids: dict[str, int] = field(default_factory=lambda: {"a": 0, "b": 0})
    made: dict[str, int] = field(default_factory=lambda: {"a": 0, "b": 0})
    times: dict[str, list[float]] = field(default_factory=dict)


def deck_of(seed: int, index: int) -> list[int]:
    deck = list(range(32))
    random.Random(f"arena:{seed}:{index}").shuffle(deck)
    return deck


def play_deal(setup: Setup, index: int) -> DealOutcome:
    """Both plays of deal ``index``: A sits at team 0 first, then at team 1."""
    options = setup.options()
    scale = options.card_scale
    deck = deck_of(setup.seed, index)
    outcome = DealOutcome(0.0)
    for a_team in (0, 1):
        match = Match(options, dealer=index % 4, auto_deal=False)
        match.start_deal(deck)
        role = ["a" if seat & 1 == a_team else "b" for seat in range(4)]
        bots = [player(getattr(setup, role[seat]), setup.seed * 1_000_003 + index * 8
                       + a_team * 4 + seat, setup.budget_s, setup.pimc_worlds)
                for seat in range(4)]
        deal = match.deal
        assert deal is not None
        while not deal.is_over:
            seat = match.current_player()
            assert seat is not None
            observation = match.observation(seat)
            start = time.perf_counter()
            action = bots[seat].choose(observation)
            elapsed = time.perf_counter() - start
            outcome.times.setdefault(getattr(setup, role[seat]), []).append(elapsed)
            match.apply_action(action, seat)
        result = match.results[-1]
        outcome.lead += (result.score[a_team] - result.score[1 - a_team]) * scale / 2
        if result.outcome != REDEAL and result.bidder is not None:
            bidder = role[result.bidder]
            outcome.bids[bidder] += 1
            outcome.made[bidder] += result.outcome == MADE
    return outcome


def _play(args: tuple[Setup, int]) -> DealOutcome:
    return play_deal(*args)


def run(setup: Setup, deals: int, jobs: int = 1, progress: bool = False) -> list[DealOutcome]:
    """Every deal's outcome, in deal order (the same whatever ``jobs`` is)."""
    tasks = [(setup, i) for i in range(deals)]
    outcomes: list[DealOutcome] = []
    results: Iterator[DealOutcome]
    if jobs > 1:
        pool = Pool(jobs)
        results = pool.imap(_play, tasks)
    else:
        pool = None
        results = map(_play, tasks)
    try:
        for outcome in results:
            outcomes.append(outcome)
            if progress:
                _bar(len(outcomes), deals)
    finally:
        if pool is not None:
            pool.close()
            pool.join()
    if progress:
        sys.stderr.write("\n")
    return outcomes


def mean_ms(outcomes: list[DealOutcome], player: str) -> float:
    """``player``'s mean decision time over ``outcomes``, in milliseconds."""
    times = [t for o in outcomes for t in o.times.get(player, [])]
    return 1000 * sum(times) / len(times)


def next_worlds(tries: list[tuple[int, float]], target_ms: float) -> int:
    """The worlds for ``pimc``'s mean decision to take ``target_ms``, from the tries so
    far, (worlds, mean ms) each: on the line through the last two (its time grows with
    its worlds, but not in proportion: the time cap stops the first tricks' sampling),
    in proportion to the last alone when there is one or the line does not climb; at
    most four times or a quarter of the last, within 1 and :data:`MOST_WORLDS`."""
    n1, t1 = tries[-1]
    guess = n1 * target_ms / t1
    if len(tries) > 1:
        n0, t0 = tries[-2]
        if n1 != n0 and (t1 - t0) / (n1 - n0) > 0:
            guess = n1 + (target_ms - t1) * (n1 - n0) / (t1 - t0)
    guess = min(max(guess, n1 / 4), n1 * 4)
    return max(1, min(MOST_WORLDS, round(guess)))


def equal_worlds(setup: Setup, jobs: int = 1, deals: int = PILOT_DEALS,
                 rounds: int = PILOT_ROUNDS) -> dict[str, Any]:
    """``--pimc-worlds equal``: as many worlds for ``pimc`` as fit in the time its
    opponent (hard) takes, in mean decision time.  Pilot deals (another seed's, not
    the measured ones) are played ``rounds`` times, each time with the worlds the
    tries so far point to (:func:`next_worlds`, from ``setup.pimc_worlds``); the
    opponent's mean is taken over every round."""
    other = setup.b if setup.a == PIMC else setup.a
    if PIMC not in (setup.a, setup.b) or other == PIMC:
        raise ValueError("equal worlds need pimc on one side only")
    pilot = replace(setup, seed=setup.seed + PILOT_SEED)
    worlds = setup.pimc_worlds
    tries: list[tuple[int, float]] = []
    times: list[float] = []
    for _ in range(rounds):
        outcomes = run(replace(pilot, pimc_worlds=worlds), deals, jobs)
        times += [t for o in outcomes for t in o.times.get(other, [])]
        tries.append((worlds, round(mean_ms(outcomes, PIMC), 3)))
        target = round(1000 * sum(times) / len(times), 3)
        worlds = next_worlds(tries, target)
    return {"worlds": worlds, "target": other, "target_ms": target,
            "pilot_deals": deals, "pilot_seed": pilot.seed, "tries": tries}


def _bar(done: int, total: int) -> None:
    width = 40
    filled = width * done // total
    sys.stderr.write(f"\r[{'#' * filled}{'.' * (width - filled)}] {done}/{total} deals")
    sys.stderr.flush()


def mean_ci(values: list[float]) -> tuple[float, float, float]:
    """Mean and its 95% interval (normal approximation)."""
    n = len(values)
    mean = sum(values) / n
    if n < 2:
        return mean, mean, mean
    var = sum((v - mean) ** 2 for v in values) / (n - 1)
    half = 1.96 * math.sqrt(var / n)
    return mean, mean - half, mean + half


def elo(leads: list[float]) -> dict[str, Any]:
    """Elo-style difference from the deals A won (a lead above zero; level deals count
    half), as a chess rating list turns a score into one: ``400 log10(s / (1 - s))``,
    with the 95% interval of ``s`` (normal approximation) carried through."""
    points = [1.0 if lead > 0 else 0.5 if lead == 0 else 0.0 for lead in leads]
    score, low, high = mean_ci(points)

    def diff(s: float) -> float | None:
        return round(400 * math.log10(s / (1 - s)), 1) if 0 < s < 1 else None

    return {"score": round(score, 4), "diff": diff(score), "ci95": [diff(low), diff(high)]}


def percentile(sorted_values: list[float], q: float) -> float:
    """Nearest-rank percentile of an ascending list."""
    rank = max(1, math.ceil(q / 100 * len(sorted_values)))
    return sorted_values[rank - 1]


def summary(setup: Setup, outcomes: list[DealOutcome]) -> dict[str, Any]:
    """The report as one JSON-ready object."""
    mean, low, high = mean_ci([o.lead for o in outcomes])
    success = {}
    for bot in ("a", "b"):
        bids = sum(o.bids[bot] for o in outcomes)
        made = sum(o.made[bot] for o in outcomes)
        success[bot] = {"level": getattr(setup, bot), "bids": bids, "made": made,
                        "rate": round(made / bids, 4) if bids else None}
    decision_ms = {}
    for level in sorted({lvl for o in outcomes for lvl in o.times}):
        times = sorted(t * 1000 for o in outcomes for t in o.times.get(level, []))
        decision_ms[level] = {"count": len(times), "mean": round(sum(times) / len(times), 3),
                              "p50": round(percentile(times, 50), 3),
                              "p99": round(percentile(times, 99), 3),
                              "max": round(times[-1], 3)}
    return {"variant": setup.variant, "preset": getattr(setup.options(), "preset", None),
            "a": setup.a, "b": setup.b,
            "seed": setup.seed, "budget_s": setup.budget_s, "deals": len(outcomes),
            "pimc_worlds": setup.pimc_worlds if PIMC in (setup.a, setup.b) else None,
            "mean": round(mean, 3),
            "ci95": [round(low, 3), round(high, 3)], "success": success,
            "elo": elo([o.lead for o in outcomes]), "decision_ms": decision_ms}


def _signed(value: float | None) -> str:
    return "n/a" if value is None else f"{value:+.0f}"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="Duplicate-deal match between two bot levels.")
    parser.add_argument("--variant", choices=list(VARIANTS), default=DEFAULT_VARIANT)
    parser.add_argument("--a", choices=PLAYERS, required=True)
    parser.add_argument("--b", choices=PLAYERS, required=True)
    parser.add_argument("--deals", type=int, default=600)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--budget", type=float, default=DEFAULT_BUDGET_S,
                        help="time cap per hard (pimc, colver) decision, seconds: "
                             "their searches end at 40%% of it")
    parser.add_argument("--pimc-worlds", default=str(PIMC_WORLDS),
                        help="pimc's deals a decision, or 'equal': as many as fit in the "
                             "other player's mean decision time (calibrated on pilot deals)")
    parser.add_argument("--preset", help="the variant's named rules (coinche's presets)")
    parser.add_argument("--json", action="store_true", help="end with one JSON line")
    parser.add_argument("--plot", help="write the running mean and its interval as SVG")
    args = parser.parse_args(argv)
    if COLVER in (args.a, args.b) and args.variant not in COLVER_RULES:
        parser.error(f"colver plays {' and '.join(COLVER_RULES)} only")
    equal = args.pimc_worlds == EQUAL
    if equal and (PIMC not in (args.a, args.b) or args.a == args.b):
        parser.error("--pimc-worlds equal needs pimc on one side only")
    if not (equal or (args.pimc_worlds.isdigit() and int(args.pimc_worlds) > 0)):
        parser.error("--pimc-worlds takes a positive number or 'equal'")
    setup = Setup(args.variant, args.a, args.b, args.seed, args.budget, args.preset,
                  PIMC_WORLDS if equal else int(args.pimc_worlds))
    try:
        setup.options()
    except ValueError as error:
        parser.error(str(error))
    calibration = None
    if equal:
        calibration = equal_worlds(setup, args.jobs)
        setup = replace(setup, pimc_worlds=calibration["worlds"])
        print(f"pimc: {setup.pimc_worlds} worlds a decision, for {calibration['target']}'s "
              f"mean of {calibration['target_ms']:.1f} ms on {calibration['pilot_deals']} "
              f"pilot deals (tries, worlds and pimc's mean ms: {calibration['tries']})")
    outcomes = run(setup, args.deals, args.jobs, progress=True)
    report = summary(setup, outcomes)
    report["calibration"] = calibration
    low, high = report["ci95"]
    rules = args.variant if report["preset"] is None else f"{args.variant} ({report['preset']})"
    print(f"{rules}: A={args.a} vs B={args.b}, {args.deals} duplicate deals, "
          f"seed {args.seed}")
    print(f"A's mean lead per deal: {report['mean']:+.2f} points, 95% CI [{low:+.2f}, {high:+.2f}]")
    rating = report["elo"]
    print(f"A's score {100 * rating['score']:.1f}% of deals (level deals half): Elo-style "
          f"difference {_signed(rating['diff'])} [{_signed(rating['ci95'][0])}, "
          f"{_signed(rating['ci95'][1])}]")
    for bot, s in report["success"].items():
        rate = "n/a" if s["rate"] is None else f"{100 * s['rate']:.1f}%"
        print(f"{bot.upper()} ({s['level']}) as bidder: {s['made']}/{s['bids']} made ({rate})")
    for level, t in report["decision_ms"].items():
        print(f"{level} decisions: mean {t['mean']:.2f} ms, p50 {t['p50']:.2f} ms, "
              f"p99 {t['p99']:.2f} ms, max {t['max']:.2f} ms ({t['count']} decisions)")
    if args.plot:
        title = f"{args.variant}: {args.a} vs {args.b}, running mean of A's lead per deal"
        with open(args.plot, "w") as out:
            out.write(running_mean_svg([o.lead for o in outcomes], title))
    if args.json:
        print(json.dumps(report))


if __name__ == "__main__":
    main()
