"""Swiss pairing on the standings: the next round's tables, each a list of the entries at
seats 0 to 3 (docs/tournaments.md, "Pairing").  Pure, and decided by its inputs alone, so
that the director of a taken-over tournament pairs a round as the lost one would have.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from .standings import Line

FIXED, ROTATING = "fixed", "rotating"


def field_size(active: int, teams: str) -> int:
    """How many entries a round needs to seat ``active`` ones: an even number of pairs, a
    multiple of four players for rotating partners (bots fill the difference)."""
    unit = 2 if teams == FIXED else 4
    return max(unit, -(-active // unit) * unit)


def pair(ranked: Sequence[Line], teams: str, round_: int, seed: int) -> list[list[int]]:
    """The tables of round ``round_`` (1 for the first) for the entries of ``ranked``, best
    first, whose number fits (:func:`field_size`).  The first round is drawn at random
    (``seed``); later ones take the entries in standings order, each pair facing the
    next one below it it has not met yet (rotating: four at a time, partnered as they
    partnered least)."""
    order = [line.entry for line in ranked]
    if round_ == 1:
        random.Random(seed).shuffle(order)
    lines = {line.entry: line for line in ranked}
    if teams == FIXED:
        return [[a, b, a, b] for a, b in _pairs(order, lines)]
    return [_partnered(order[i:i + 4], lines) for i in range(0, len(order), 4)]


def _pairs(order: list[int], lines: dict[int, Line]) -> list[tuple[int, int]]:
    """Each entry from the top with the first one below it that it has not met (or the
    first one below it, if it met them all); the higher takes seats 0 and 2."""
    left = list(order)
    pairs = []
    while left:
        top = left.pop(0)
        met = set(lines[top].opponents)
        other = next((e for e in left if e not in met), left[0])
        left.remove(other)
        pairs.append((top, other))
    return pairs


def _partnered(group: list[int], lines: dict[int, Line]) -> list[int]:
    """Four players' seats: of the three ways to make two teams of them, the one whose
    partners played together least (the first such: top with bottom, first)."""
    a, b, c, d = group
    ways = [((a, d), (b, c)), ((a, c), (b, d)), ((a, b), (c, d))]

    def repeats(way: tuple[tuple[int, int], tuple[int, int]]) -> int:
        return sum(lines[x].partners.count(y) for x, y in way)

    (n, s), (e, w) = min(ways, key=repeats)
    return [n, e, s, w]
