"""Players' ratings, one per variant: OpenSkill's Weng-Lin Plackett-Luce model, two teams
of two.  docs/ratings.md measures why this system and where each number here comes from
(``python bench/ratings.py``).

Pure: no I/O, no database.  The server keeps a :class:`Rating` and a count of rated
matches per player and variant, and calls :func:`rate` (or :func:`forfeit`) when a rated
match ends; bots sit with a fixed rating per level (:func:`bot_rating`) that never moves.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from openskill.models import PlackettLuce

# The library's defaults (mu 25, sigma 25/3, beta 25/6, tau 25/300): measured as they are.
MODEL = PlackettLuce()
Z = 3.0  # sigmas below the estimate for the conservative value (OpenSkill's ordinal)
SCALE = 40.0  # display points per unit of mu
BASE = 1500  # display points of mu 25, the prior's mean


@dataclass(frozen=True, slots=True)
class Rating:
    """A skill estimate and its uncertainty (standard deviation), in the model's units."""

    mu: float
    sigma: float
    bot: bool = False  # a bot level's fixed rating: matches never move it

    def __post_init__(self) -> None:
        if not self.sigma > 0:
            raise ValueError(f"a rating's sigma must be positive, not {self.sigma!r}")


NEW = Rating(MODEL.mu, MODEL.sigma)  # a player's first rating in each variant

# Each level's converged mean and spread in a simulated population of players of the
# three levels, its matches drawn from real matches between the bots (docs/ratings.md).
BOT_RATINGS: dict[str, dict[str, Rating]] = {
    "bulgarian": {"easy": Rating(17.67, 2.19, bot=True), "normal": Rating(26.78, 2.12, bot=True),
                  "hard": Rating(30.78, 2.15, bot=True)},
    "classic": {"easy": Rating(15.64, 2.32, bot=True), "normal": Rating(28.21, 2.19, bot=True),
                "hard": Rating(31.25, 2.25, bot=True)},
    # Provisional, not measured: classic's, until Coinche's bots (issue #31) are measured
    # with bench/ratings.py.
    "coinche": {"easy": Rating(15.64, 2.32, bot=True), "normal": Rating(28.21, 2.19, bot=True),
                "hard": Rating(31.25, 2.25, bot=True)},
}

# Provisional until both hold: in the simulated populations the ratings first put nine
# pairs in ten of players of different levels the right way round after 40 matches each
# (median, both variants), their sigma then about 4.8 (docs/ratings.md).
PROVISIONAL_MATCHES = 40
PROVISIONAL_SIGMA = 5.0

Team = tuple[Rating, Rating]


def bot_rating(variant: str, level: str) -> Rating:
    try:
        return BOT_RATINGS[variant][level]
    except KeyError:
        raise ValueError(f"no bot rating for variant {variant!r} and level {level!r}") from None


def rate(teams: tuple[Team, Team], winner: int) -> tuple[Team, Team]:
    """Both teams' ratings after a finished match that team ``winner`` (0 or 1) won; a
    bot's rating comes back unchanged, yet counts in its partners' and opponents' update."""
    if winner not in (0, 1):
        raise ValueError(f"winner must be team 0 or 1, not {winner!r}")
    rated = MODEL.rate([[MODEL.rating(r.mu, r.sigma) for r in team] for team in teams],
                       ranks=[winner, 1 - winner])
    first, second = (
        (_kept(team[0], new[0].mu, new[0].sigma), _kept(team[1], new[1].mu, new[1].sigma))
        for team, new in zip(teams, rated, strict=True))
    return first, second


def forfeit(teams: tuple[Team, Team], left: int) -> tuple[Team, Team]:
    """An abandoned or forfeited match: a loss for team ``left``, the team that left."""
    if left not in (0, 1):
        raise ValueError(f"the team that left must be 0 or 1, not {left!r}")
    return rate(teams, 1 - left)


def _kept(old: Rating, mu: float, sigma: float) -> Rating:
    return old if old.bot else Rating(mu, sigma)


def win_chance(teams: tuple[Team, Team]) -> float:
    """Team 0's chance to win, by the curve the model rates with (logistic in the team
    sums' gap over c, Weng and Lin's Bradley-Terry form).  The library's ``predict_win``
    uses a normal curve instead, sharper than what Plackett-Luce learns: measured, it
    promises 96% where teams win 75% (docs/ratings.md)."""
    mu = [sum(r.mu for r in team) for team in teams]
    c = math.sqrt(sum(r.sigma ** 2 for team in teams for r in team) + 2 * MODEL.beta ** 2)
    return 1 / (1 + math.exp((mu[1] - mu[0]) / c))


def provisional(rating: Rating, matches: int) -> bool:
    """Too few rated matches, or still too uncertain, for a leaderboard."""
    return matches < PROVISIONAL_MATCHES or rating.sigma > PROVISIONAL_SIGMA


def estimate(rating: Rating) -> int:
    """The skill estimate in display points (a new player: 1500)."""
    return round(BASE + SCALE * (rating.mu - MODEL.mu))


def margin(rating: Rating) -> int:
    """The uncertainty shown beside the estimate: ``estimate ± margin`` (Z sigmas)."""
    return round(SCALE * Z * rating.sigma)


def display(rating: Rating) -> int:
    """The conservative value that leaderboards rank by: the estimate less its margin, so
    a player climbs by being both good and well measured."""
    return estimate(rating) - margin(rating)
