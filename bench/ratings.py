"""Which rating system, shown by measurement (docs/ratings.md): ``python bench/ratings.py``.

Two steps.  ``--play`` plays real whole matches between 2v2 teams made of the bot levels,
in both variants, and stores each outcome in bench/data/ratings_matches.json.  Without it,
the analysis reads that file (no replaying): each pairing's win rate with its interval,
then a population of simulated players of known level forming random teams, every match
drawn from those measured rates, rated by each candidate system over thousands of matches
and many seeds; it prints how soon each system orders the players rightly, how well its
predictions score, how a rating gap maps to a win rate, the converged mean per level (the
bots' fixed ratings) and the uncertainty at which the ordering is mostly right.
"""

from __future__ import annotations

import argparse
import itertools
import json
import math
import random
import statistics
import subprocess
import sys
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from multiprocessing import Pool
from pathlib import Path
from typing import Any

import glicko2  # type: ignore[import-untyped]
import trueskill  # type: ignore[import-untyped]
from openskill.models import PlackettLuce, ThurstoneMostellerFull

from ai import LEVELS, make_bot
from app import ratings
from engine.match import Match
from engine.options import Options
from engine.variants import VARIANTS

DATA = Path(__file__).parent / "data" / "ratings_matches.json"
CHOSEN = "openskill-plackett-luce"  # the system app/ratings.py runs
HARD_BUDGET_S = 0.25  # the hard bot's cap per decision while playing (the server's: 0.24 s)
# every team of two bots, (easy, easy) ... (hard, hard)
TEAMS: list[tuple[str, str]] = list(itertools.combinations_with_replacement(LEVELS, 2))
PAIRINGS = list(itertools.combinations(TEAMS, 2))  # two different teams; a mirror is 50%


Team = tuple[str, str]  # two levels, weakest first


def team_of(levels: Iterable[str]) -> Team:
    first, second = sorted(levels, key=LEVELS.index)
    return first, second


def team_name(team: tuple[str, ...]) -> str:
    return "+".join(team)


# ------------------------------------------------------------------ step 1: real matches

Task = tuple[str, tuple[str, str], tuple[str, str], int, float]


def play_match(task: Task) -> dict[str, Any]:
    """One whole match: ``first`` sits at seats 0 and 2 (team 0), ``second`` at 1 and 3."""
    variant, first, second, seed, budget_s = task
    match = Match(Options.make(variant), seed=seed)
    levels = [first[0], second[0], first[1], second[1]]
    bots = [make_bot(level, seed * 8 + seat, budget_s) for seat, level in enumerate(levels)]
    while not match.is_over:
        seat = match.current_player()
        assert seat is not None
        match.apply_action(bots[seat].choose(match.observation(seat)), seat)
    return {"variant": variant, "seed": seed, "team0": team_name(first),
            "team1": team_name(second), "winner": match.winner,
            "score": list(match.totals), "deals": len(match.results)}


def tasks(seeds_cheap: int, seeds_hard: int, budget_s: float) -> list[Task]:
    """Each seed is played twice, the teams swapping sides: both teams get the same first
    deal and the same seats (later deals part ways as the play differs)."""
    out: list[Task] = []
    for variant in VARIANTS:
        for a, b in PAIRINGS:
            seeds = seeds_hard if "hard" in a + b else seeds_cheap
            for seed in range(1, seeds + 1):
                out.append((variant, a, b, seed, budget_s))
                out.append((variant, b, a, seed, budget_s))
    # the slow matches first, so that the pool's last tasks are short ones
    return sorted(out, key=lambda t: -(t[1] + t[2]).count("hard"))


def play(seeds_cheap: int, seeds_hard: int, budget_s: float, jobs: int) -> None:
    todo = tasks(seeds_cheap, seeds_hard, budget_s)
    start = time.monotonic()
    matches = []
    with Pool(jobs) as pool:
        for done, outcome in enumerate(pool.imap_unordered(play_match, todo), 1):
            matches.append(outcome)
            sys.stderr.write(f"\r{done}/{len(todo)} matches, {time.monotonic() - start:.0f} s")
    sys.stderr.write("\n")
    matches.sort(key=lambda m: (m["variant"], m["team0"], m["team1"], m["seed"]))
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True,
                            text=True, check=False).stdout.strip()
    store({"command": " ".join(["python bench/ratings.py", *sys.argv[1:]]),
           "commit": commit, "hard_budget_s": budget_s,
           "seconds": round(time.monotonic() - start), "matches": matches})
    print(f"{len(matches)} matches in {time.monotonic() - start:.0f} s -> {DATA}")


def store(data: dict[str, Any]) -> None:
    """JSON with one match a line, so that a diff of two runs reads well."""
    head = json.dumps({k: v for k, v in data.items() if k != "matches"})[:-1]
    rows = ",\n".join(json.dumps(m) for m in data["matches"])
    DATA.parent.mkdir(exist_ok=True)
    DATA.write_text(f'{head}, "matches": [\n{rows}\n]}}\n')


# ------------------------------------------------------------------ measured win rates

Truth = dict[tuple[Team, Team], float]  # P(first team wins), every ordered pair of teams


def load() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(DATA.read_text())
    return data


def wilson(wins: int, n: int) -> tuple[float, float]:
    """95% Wilson interval of a proportion: sound also at 0 or n wins out of few."""
    z = 1.96
    p = wins / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return centre - half, centre + half


def tally(matches: list[dict[str, Any]], variant: str) -> dict[tuple[Team, Team], list[int]]:
    """Per pairing as in PAIRINGS: [wins of the first team, matches, deals]."""
    counts: dict[tuple[Team, Team], list[int]] = {pairing: [0, 0, 0] for pairing in PAIRINGS}
    for m in matches:
        if m["variant"] != variant:
            continue
        t0, t1 = (team_of(m[key].split("+")) for key in ("team0", "team1"))
        first_is_0 = (t0, t1) in counts
        row = counts[(t0, t1) if first_is_0 else (t1, t0)]
        row[0] += (m["winner"] == 0) == first_is_0
        row[1] += 1
        row[2] += m["deals"]
    return counts


def truth_of(counts: dict[tuple[Team, Team], list[int]]) -> Truth:
    """The simulation's outcome law: measured rates shrunk by half a win each way
    (Jeffreys), so that 20 wins out of 20 stays a probability; a mirror pairing is 50%."""
    truth: Truth = {(team, team): 0.5 for team in TEAMS}
    for (a, b), (wins, n, _) in counts.items():
        truth[(a, b)] = (wins + 0.5) / (n + 1)
        truth[(b, a)] = 1 - truth[(a, b)]
    return truth


def print_rates(variant: str, counts: dict[tuple[Team, Team], list[int]]) -> None:
    print(f"\n## {variant}: real matches (team A vs team B)\n")
    print("| team A | team B | A won | matches | A's win rate | 95% interval | deals/match |")
    print("|---|---|---:|---:|---:|---|---:|")
    for (a, b), (wins, n, deals) in counts.items():
        low, high = wilson(wins, n)
        print(f"| {team_name(a)} | {team_name(b)} | {wins} | {n} | {wins / n:.2f} | "
              f"[{low:.2f}, {high:.2f}] | {deals / n:.1f} |")


# ------------------------------------------------------------------ step 2: the systems

class System:
    """One candidate rating system, seen through what the simulation needs of it."""

    name = ""

    def new(self) -> Any:
        raise NotImplementedError

    def rate(self, teams: list[list[Any]], winner: int) -> list[list[Any]]:
        raise NotImplementedError

    def predict(self, teams: list[list[Any]]) -> float:
        """The first team's chance to win."""
        raise NotImplementedError

    def mean(self, rating: Any) -> float:
        return float(rating.mu)

    def spread(self, rating: Any) -> float:
        return float(rating.sigma)


class Shipped(System):
    """app/ratings.py itself: what the server will run is what is measured."""

    name = CHOSEN

    def new(self) -> Any:
        return ratings.NEW

    def rate(self, teams: list[list[Any]], winner: int) -> list[list[Any]]:
        first, second = ratings.rate(((teams[0][0], teams[0][1]), (teams[1][0], teams[1][1])),
                                     winner)
        return [list(first), list(second)]

    def predict(self, teams: list[list[Any]]) -> float:
        return ratings.win_chance(((teams[0][0], teams[0][1]), (teams[1][0], teams[1][1])))


class OpenSkill(System):
    """Another of the library's models, forecasting with its ``predict_win``."""

    def __init__(self, name: str, model: Any) -> None:
        self.name = name
        self.model = model

    def new(self) -> Any:
        return self.model.rating()

    def rate(self, teams: list[list[Any]], winner: int) -> list[list[Any]]:
        rated: list[list[Any]] = self.model.rate(teams, ranks=[winner, 1 - winner])
        return rated

    def predict(self, teams: list[list[Any]]) -> float:
        return float(self.model.predict_win(teams)[0])


class TrueSkill(System):
    name = "trueskill"

    def __init__(self) -> None:
        self.env = trueskill.TrueSkill(draw_probability=0.0)

    def new(self) -> Any:
        return self.env.create_rating()

    def rate(self, teams: list[list[Any]], winner: int) -> list[list[Any]]:
        return [list(team) for team in self.env.rate(teams, ranks=[winner, 1 - winner])]

    def predict(self, teams: list[list[Any]]) -> float:
        """Herbrich et al.'s team win probability (the package gives none)."""
        players = [r for team in teams for r in team]
        delta = sum(r.mu for r in teams[0]) - sum(r.mu for r in teams[1])
        spread = math.sqrt(len(players) * self.env.beta ** 2 + sum(r.sigma ** 2 for r in players))
        return float(self.env.cdf(delta / spread))


GLICKO_SCALE = 173.7178  # Glicko-2's internal unit, in rating points


class Glicko2(System):
    """Glicko-2 (the ``glicko2`` package), one rating period per match, as Lichess rates
    each game at once.  ``composite``: each player meets one opponent whose rating is the
    opponents' sum less the partner's (team sums decide, as in the other systems), its
    deviation the three combined; otherwise each opponent counts as one game of its own
    and the partner is ignored."""

    def __init__(self, composite: bool) -> None:
        self.composite = composite
        self.name = "glicko2-composite" if composite else "glicko2-per-opponent"

    def new(self) -> Any:
        return glicko2.Player()

    def mean(self, rating: Any) -> float:
        return float(rating.rating)

    def spread(self, rating: Any) -> float:
        return float(rating.rd)

    def rate(self, teams: list[list[Any]], winner: int) -> list[list[Any]]:
        before = [[(p.rating, p.rd) for p in team] for team in teams]
        out = []
        for side, team in enumerate(teams):
            score = float(side == winner)
            opponents = before[1 - side]
            new_team = []
            for seat, player in enumerate(team):
                partner = before[side][1 - seat]
                fresh = glicko2.Player(player.rating, player.rd, player.vol)
                if self.composite:
                    rating = opponents[0][0] + opponents[1][0] - partner[0]
                    rd = math.sqrt(opponents[0][1] ** 2 + opponents[1][1] ** 2 + partner[1] ** 2)
                    fresh.update_player([rating], [rd], [score])
                else:
                    fresh.update_player([r for r, _ in opponents], [d for _, d in opponents],
                                        [score, score])
                new_team.append(fresh)
            out.append(new_team)
        return out

    def predict(self, teams: list[list[Any]]) -> float:
        """Glicko's expected score on the teams' sums (composite) or means."""
        share = 1.0 if self.composite else 0.5
        delta = share * (sum(p.rating for p in teams[0]) - sum(p.rating for p in teams[1]))
        phi = share * math.sqrt(sum(p.rd ** 2 for team in teams for p in team)) / GLICKO_SCALE
        g = 1 / math.sqrt(1 + 3 * phi * phi / math.pi ** 2)
        return 1 / (1 + math.exp(-g * delta / GLICKO_SCALE))


def systems() -> list[System]:
    """The candidates.  OpenSkill's Bradley-Terry model is left out: with two teams it is
    Plackett-Luce exactly (measured: equal figures to the last digit).  Plackett-Luce comes
    twice: the same ratings, forecast with app/ratings.py's curve and with the library's."""
    return [Shipped(), OpenSkill("openskill-plackett-luce, predict_win", PlackettLuce()),
            OpenSkill("openskill-thurstone-mosteller", ThurstoneMostellerFull()),
            TrueSkill(), Glicko2(composite=True), Glicko2(composite=False)]


# ------------------------------------------------------------------ step 2: the simulation

PER_LEVEL = 12  # simulated players of each level
PLAYERS = PER_LEVEL * len(LEVELS)
CHECKPOINTS = (5, 10, 15, 20, 30, 40, 50, 75, 100, 150, 200)  # matches per player, on average
MOSTLY = 0.9  # the share of rightly ordered pairs that ends the provisional stage
WARM = 20  # matches per player after which predictions count as "settled"
BINS = 10


@dataclass
class Run:
    """What one simulated population tells about one system."""

    accuracy: dict[int, float] = field(default_factory=dict)  # checkpoint -> pairwise
    ordered: dict[int, bool] = field(default_factory=dict)  # checkpoint -> every pair right
    sigma: dict[int, float] = field(default_factory=dict)  # checkpoint -> median spread
    means: dict[str, float] = field(default_factory=dict)  # level -> mean rating at the end
    spreads: dict[str, float] = field(default_factory=dict)  # level -> mean spread at the end
    # every match: the system's chance for team 0, the true one, whether it won, settled
    forecasts: list[tuple[float, float, bool, bool]] = field(default_factory=list)
    gaps: list[tuple[float, bool]] = field(default_factory=list)  # settled: mean gap, won


def pairwise_accuracy(levels: list[int], means: list[float]) -> float:
    """Share of pairs of players of different levels that the ratings put the right way."""
    right = total = 0
    for i, j in itertools.combinations(range(len(levels)), 2):
        if levels[i] != levels[j]:
            total += 1
            right += (means[i] - means[j]) * (levels[i] - levels[j]) > 0
    return right / total


def simulate(name: str, truth: Truth, seed: int) -> Run:
    system = next(s for s in systems() if s.name == name)
    rng = random.Random(seed)
    levels = [index for index in range(len(LEVELS)) for _ in range(PER_LEVEL)]
    ratings = [system.new() for _ in levels]
    run = Run()
    checkpoints = {c * PLAYERS // 4: c for c in CHECKPOINTS}
    for number in range(1, max(checkpoints) + 1):
        seats = rng.sample(range(PLAYERS), 4)
        teams = [[ratings[s] for s in seats[:2]], [ratings[s] for s in seats[2:]]]
        a, b = (team_of(LEVELS[levels[s]] for s in pair) for pair in (seats[:2], seats[2:]))
        p_true = truth[(a, b)]
        winner = 0 if rng.random() < p_true else 1
        settled = number > WARM * PLAYERS // 4
        run.forecasts.append((system.predict(teams), p_true, winner == 0, settled))
        if settled:
            gap = sum(map(system.mean, teams[0])) - sum(map(system.mean, teams[1]))
            run.gaps.append((gap / 2, winner == 0))
        rated = system.rate(teams, winner)
        for seat, rating in zip(seats, rated[0] + rated[1], strict=True):
            ratings[seat] = rating
        if number in checkpoints:
            means = [system.mean(r) for r in ratings]
            c = checkpoints[number]
            run.accuracy[c] = pairwise_accuracy(levels, means)
            run.ordered[c] = run.accuracy[c] == 1.0
            run.sigma[c] = statistics.median(system.spread(r) for r in ratings)
    for index, level in enumerate(LEVELS):
        mine = [r for r, lv in zip(ratings, levels, strict=True) if lv == index]
        run.means[level] = statistics.fmean(system.mean(r) for r in mine)
        run.spreads[level] = statistics.fmean(system.spread(r) for r in mine)
    return run


# ------------------------------------------------------------------ step 2: the figures

SEEDS = 12  # simulated populations per system and variant



def log_loss(pairs: list[tuple[float, bool]]) -> float:
    eps = 1e-9
    return -statistics.fmean(math.log(max(eps, p if won else 1 - p)) for p, won in pairs)


def brier(pairs: list[tuple[float, bool]]) -> float:
    return statistics.fmean((p - won) ** 2 for p, won in pairs)


def calibration(pairs: list[tuple[float, bool]]) -> list[tuple[float, float, int]]:
    """Per tenth of forecast probability: mean forecast, observed win rate, count."""
    bins: list[list[tuple[float, bool]]] = [[] for _ in range(BINS)]
    for p, won in pairs:
        bins[min(BINS - 1, int(p * BINS))].append((p, won))
    return [(statistics.fmean(p for p, _ in b), statistics.fmean(w for _, w in b), len(b))
            for b in bins if b]


def calibration_error(pairs: list[tuple[float, bool]]) -> float:
    """Expected calibration error: mean |forecast - outcome rate| over tenths, by count."""
    return sum(n * abs(p - w) for p, w, n in calibration(pairs)) / len(pairs)


def first_reaching(runs: list[Run], share: float) -> str:
    """Median over seeds of the first checkpoint with pairwise accuracy >= ``share``."""
    firsts = [next((c for c in CHECKPOINTS if run.accuracy[c] >= share), math.inf)
              for run in runs]
    value = statistics.median(firsts)
    return f">{CHECKPOINTS[-1]}" if value == math.inf else f"{value:g}"


def compare(variant: str, truth: Truth, jobs: int) -> dict[str, list[Run]]:
    results = {}
    print(f"\n## {variant}: {PLAYERS} simulated players ({PER_LEVEL} per level), random "
          f"teams, {CHECKPOINTS[-1] * PLAYERS // 4} matches, {SEEDS} seeds\n")
    shown = (5, 10, 20, 50, 100, 200)
    print("| system | " + " | ".join(f"acc@{c}" for c in shown)
          + " | to 90% | to 95% | all right@200 | log loss | settled | Brier | calib. err |")
    print("|---|" + "---:|" * (len(shown) + 7))
    for system in systems():
        sys.stdout.flush()  # else the workers inherit the buffer and print it again
        with Pool(jobs) as pool:
            runs = pool.starmap(simulate, [(system.name, truth, seed)
                                           for seed in range(1, SEEDS + 1)])
        results[system.name] = runs
        every = [(p, w) for run in runs for p, _, w, _ in run.forecasts]
        settled = [(p, w) for run in runs for p, _, w, s in run.forecasts if s]
        acc = " | ".join(f"{statistics.median(r.accuracy[c] for r in runs):.3f}" for c in shown)
        print(f"| {system.name} | {acc} | {first_reaching(runs, 0.9)} | "
              f"{first_reaching(runs, 0.95)} | "
              f"{sum(r.ordered[CHECKPOINTS[-1]] for r in runs)}/{SEEDS} | "
              f"{log_loss(every):.4f} | {log_loss(settled):.4f} | {brier(settled):.4f} | "
              f"{calibration_error(settled):.4f} |")
    runs = next(iter(results.values()))
    oracle = [(t, w) for run in runs for _, t, w, s in run.forecasts if s]
    print(f"| (the true probabilities) | | | | | | | | | | {log_loss(oracle):.4f} | "
          f"{brier(oracle):.4f} | {calibration_error(oracle):.4f} |")
    print("\nacc@N: median share of pairs of players of different levels in the right order "
          "after N matches per player; to 90%/95%: median matches per player until it "
          "first gets there; log loss over all matches, then (settled, Brier, calibration) "
          f"over matches after {WARM} per player.")
    return results


def describe(variant: str, runs: list[Run]) -> None:
    """The chosen system in detail: calibration, rating gap, convergence, levels' means."""
    settled = [(p, w) for run in runs for p, _, w, s in run.forecasts if s]
    print(f"\n### {variant}, {CHOSEN}: forecast against outcome (settled matches)\n")
    print("| forecast for team 0 | team 0 won | matches |\n|---:|---:|---:|")
    for p, w, n in calibration(settled):
        print(f"| {p:.2f} | {w:.2f} | {n} |")
    print(f"\n### {variant}, {CHOSEN}: rating gap (team means, display points) and win rate\n")
    print("| gap | team ahead won | matches |\n|---|---:|---:|")
    gaps = [(abs(g) * ratings.SCALE, (g > 0) == w) for run in runs for g, w in run.gaps if g]
    edges = (0, 50, 100, 150, 200, 300, 400, 600, math.inf)
    for low, high in itertools.pairwise(edges):
        inside = [w for g, w in gaps if low <= g < high]
        if inside:
            print(f"| {low:g}-{high:g} | {statistics.fmean(inside):.2f} | {len(inside)} |")
    print(f"\n### {variant}, {CHOSEN}: convergence (median over seeds)\n")
    print("| matches per player | pairwise accuracy | median sigma | all right |"
          "\n|---:|---:|---:|---:|")
    for c in CHECKPOINTS:
        print(f"| {c} | {statistics.median(r.accuracy[c] for r in runs):.3f} | "
              f"{statistics.median(r.sigma[c] for r in runs):.2f} | "
              f"{sum(r.ordered[c] for r in runs)}/{len(runs)} |")
    mostly = next((c for c in CHECKPOINTS
                   if statistics.median(r.accuracy[c] for r in runs) >= MOSTLY), None)
    if mostly is not None:
        print(f"\nThe ordering is first {MOSTLY:.0%} right (median) after {mostly} matches "
              f"per player, at a median sigma of "
              f"{statistics.median(r.sigma[mostly] for r in runs):.2f} (app/ratings.py: "
              f"provisional below {ratings.PROVISIONAL_MATCHES} matches or above sigma "
              f"{ratings.PROVISIONAL_SIGMA}).")
    print(f"\n### {variant}, {CHOSEN}: each level's mean rating after "
          f"{CHECKPOINTS[-1]} matches per player (median over seeds)\n")
    print("| level | mu | sigma | app/ratings.py has |\n|---|---:|---:|---|")
    for level in LEVELS:
        bot = ratings.bot_rating(variant, level)
        print(f"| {level} | {statistics.median(r.means[level] for r in runs):.2f} | "
              f"{statistics.median(r.spreads[level] for r in runs):.2f} | "
              f"{bot.mu:.2f}, {bot.sigma:.2f} |")


# ------------------------------------------------------------------ step 3: people and bots

HUMANS_PER_LEVEL = 4
HUMAN_MATCHES = 100  # per simulated person
BOT_SHARE = 0.5  # each seat is a bot with this chance, else another person


def with_bots(variant: str, truth: Truth, seed: int) -> dict[int, list[tuple[int, float]]]:
    """People of known levels playing rated matches through app/ratings.py, about half
    the seats bots of random levels whose fixed ratings never move: each person's mu after
    each count of their matches, with their level's index in LEVELS."""
    rng = random.Random(seed)
    levels = [i for i in range(len(LEVELS)) for _ in range(HUMANS_PER_LEVEL)]
    people = [ratings.NEW for _ in levels]
    played = [0] * len(levels)
    out: dict[int, list[tuple[int, float]]] = {}
    while min(played) < HUMAN_MATCHES:
        first = min(range(len(levels)), key=lambda i: (played[i], rng.random()))
        others = [i for i in rng.sample(range(len(levels)), len(levels)) if i != first]
        seats: list[int | str] = [first]
        for _ in range(3):
            seats.append(rng.choice(LEVELS) if rng.random() < BOT_SHARE else others.pop())
        seats = seats[:1] + rng.sample(seats[1:], 3)
        current = [ratings.bot_rating(variant, s) if isinstance(s, str) else people[s]
                   for s in seats]
        level = [s if isinstance(s, str) else LEVELS[levels[s]] for s in seats]
        winner = 0 if rng.random() < truth[(team_of(level[:2]), team_of(level[2:]))] else 1
        new = ratings.rate(((current[0], current[1]), (current[2], current[3])), winner)
        for seat, rating in zip(seats, new[0] + new[1], strict=True):
            if isinstance(seat, int):
                people[seat] = rating
                played[seat] += 1
                if played[seat] in (5, 10, 20, 50, HUMAN_MATCHES):
                    out.setdefault(played[seat], []).append((levels[seat], rating.mu))
    return out


def print_with_bots(variant: str, truth: Truth) -> None:
    print(f"\n### {variant}: people playing with and against bots, bots' ratings fixed\n")
    print(f"{HUMANS_PER_LEVEL * len(LEVELS)} people ({HUMANS_PER_LEVEL} per level), each "
          f"seat a bot of a random level with chance {BOT_SHARE}; median mu of each level's "
          f"people after N of their matches, over {SEEDS} seeds\n")
    runs = [with_bots(variant, truth, seed) for seed in range(1, SEEDS + 1)]
    print("| level | bot's mu | " + " | ".join(f"after {n}" for n in sorted(runs[0]))
          + " |\n|---|---:|" + "---:|" * len(runs[0]))
    for index, level in enumerate(LEVELS):
        cells = []
        for n in sorted(runs[0]):
            mus = [mu for run in runs for lv, mu in run[n] if lv == index]
            cells.append(f"{statistics.median(mus):.2f}")
        print(f"| {level} | {ratings.bot_rating(variant, level).mu:.2f} | "
              + " | ".join(cells) + " |")
    print("\nA new player's first match, the three others bots of the levels named "
          "(mu before 25.00):\n")
    print("| partner | opponents | win: mu, sigma after | loss: mu, sigma after |"
          "\n|---|---|---|---|")
    for partner, opponents in (("normal", ("normal", "normal")), ("hard", ("easy", "easy")),
                               ("easy", ("hard", "hard"))):
        team = (ratings.NEW, ratings.bot_rating(variant, partner))
        them = (ratings.bot_rating(variant, opponents[0]),
                ratings.bot_rating(variant, opponents[1]))
        won, lost = (ratings.rate((team, them), w)[0][0] for w in (0, 1))
        print(f"| {partner} | {team_name(opponents)} | {won.mu:.2f}, {won.sigma:.2f} | "
              f"{lost.mu:.2f}, {lost.sigma:.2f} |")


def analyse(jobs: int) -> None:
    data = load()
    print(f"# Ratings: {len(data['matches'])} real matches from {DATA.name} (commit "
          f"{data['commit']}, hard's cap {data['hard_budget_s']} s per decision, made by "
          f"`{data['command']}` in {data['seconds']} s)")
    for variant in VARIANTS:
        counts = tally(data["matches"], variant)
        print_rates(variant, counts)
        truth = truth_of(counts)
        results = compare(variant, truth, jobs)
        describe(variant, results[CHOSEN])
        print_with_bots(variant, truth)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--play", action="store_true", help="play the real matches first")
    parser.add_argument("--seeds", type=int, default=50,
                        help="seeds per pairing without a hard bot (each played both ways)")
    parser.add_argument("--seeds-hard", type=int, default=10,
                        help="seeds per pairing with a hard bot (each played both ways)")
    parser.add_argument("--budget", type=float, default=HARD_BUDGET_S,
                        help="hard's time cap per decision while playing, seconds")
    parser.add_argument("--jobs", type=int, default=2)
    args = parser.parse_args(argv)
    if args.play:
        play(args.seeds, args.seeds_hard, args.budget, args.jobs)
    analyse(args.jobs)


if __name__ == "__main__":
    main()
