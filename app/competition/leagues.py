"""The rules of the seasonal leagues, pure (docs/tournaments.md, "Leagues"): divisions
placed by the hidden rating, groups of at most :data:`GROUP_SIZE`, league points per
rated match, and the zones of a group moved at the season's end."""

from __future__ import annotations

DIVISIONS = 5  # 1 the top, 5 the bottom
GROUP_SIZE = 30  # players of a division in one group of a season
WIN_POINTS, PLAY_POINTS = 3, 1  # league points for a rated match won, lost
ZONE = 0.2  # the share of a group promoted (its top) and demoted (its bottom)
# The lowest hidden rating (OpenSkill mu) of each division but the last: a new player's
# 25 starts in division 3.
FLOORS = (31.0, 28.0, 25.0, 22.0)


def division_of(mu: float | None) -> int:
    """The division a player without one starts in, by their rating (None: a new one's)."""
    mu = 25.0 if mu is None else mu
    return next((i + 1 for i, floor in enumerate(FLOORS) if mu >= floor), DIVISIONS)


def zones(size: int) -> tuple[int, int]:
    """How many of a group of ``size`` go up, and down, at the season's end: a fifth each
    (rounded), at least one once three play; none in a smaller group."""
    if size < 3:
        return 0, 0
    share = max(1, round(size * ZONE))
    return share, share


def moved(division: int, rank: int, size: int) -> int:
    """The division a player of ``division`` ranked ``rank`` (1 the top) of a group of
    ``size`` plays next season in."""
    up, down = zones(size)
    if rank <= up and division > 1:
        return division - 1
    if rank > size - down and division < DIVISIONS:
        return division + 1
    return division
