"""The standings of a tournament, from its round tables' results: what each entry scored in
each round (match points, points for and against, and in a duplicate tournament its
score against the field), summed and ranked.  Pure: the director and the API read the
rows and hand them here (docs/tournaments.md, "Scoring" and "Duplicate scoring").
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

WIN, DRAW, LOSS = 1.0, 0.5, 0.0


@dataclass(frozen=True, slots=True)
class Played:
    """A round table as the standings read it: the entry at each seat, and once ended its
    totals, winning team (None: a draw), the seats whose human left, each deal's score."""

    round: int
    seats: Sequence[int]
    ended: bool = False
    totals: Sequence[int] = (0, 0)
    winner: int | None = None
    left: Sequence[int] = ()
    scores: Sequence[Sequence[int]] = ()


@dataclass(slots=True)
class Line:
    """One entry's line of the standings."""

    entry: int
    rank: int = 0
    points: float = 0.0  # match points: 1 a win, 1/2 a draw
    played: int = 0
    wins: int = 0
    diff: int = 0  # points for less points against, over its matches
    field_score: float = 0.0  # duplicate: the sum of its deals' scores against the field
    opponents: list[int] = field(default_factory=list)
    partners: list[int] = field(default_factory=list)


def match_points(table: Played) -> tuple[float, float]:
    """Each team's match points at an ended table.  A team one of whose humans left loses
    the round (both lose when both teams had one); otherwise the winner takes a win, and
    a match decided level at the round's time limit is a draw."""
    quitters = {seat % 2 for seat in table.left}
    if quitters:
        return (LOSS if 0 in quitters else WIN, LOSS if 1 in quitters else WIN)
    if table.winner is None:
        return DRAW, DRAW
    return (WIN, LOSS) if table.winner == 0 else (LOSS, WIN)


def field_scores(tables: Sequence[Played]) -> list[list[float]]:
    """Duplicate scoring of one round: for each table, each team's score against the field,
    summed over its deals.  A deal's net score for a team (its score less the other
    team's) is compared with the mean net score of the same seats at the round's other
    ended tables that played that deal (the same cards: one seed for the round); a deal
    nobody else has played yet scores 0."""
    ended = [i for i, t in enumerate(tables) if t.ended]
    out = [[0.0, 0.0] for _ in tables]
    deals = max((len(tables[i].scores) for i in ended), default=0)
    for k in range(deals):
        held = [i for i in ended if len(tables[i].scores) > k]
        for team in (0, 1):
            net = {i: tables[i].scores[k][team] - tables[i].scores[k][1 - team] for i in held}
            total = sum(net.values())
            for i in held:
                if len(held) > 1:
                    out[i][team] += net[i] - (total - net[i]) / (len(held) - 1)
    return out


def standings(entries: Iterable[int], tables: Sequence[Played],
              duplicate: bool) -> list[Line]:
    """Every entry's line, ranked: by match points, then points difference (Swiss); by
    score against the field, then match points (duplicate).  Equal keys share a rank."""
    lines = {entry: Line(entry) for entry in entries}
    by_round: dict[int, list[Played]] = defaultdict(list)
    for table in tables:
        by_round[table.round].append(table)
    for round_tables in by_round.values():
        fields = field_scores(round_tables) if duplicate else None
        for index, table in enumerate(round_tables):
            if table.ended:
                _count(lines, table, None if fields is None else fields[index])
    ordered = sorted(lines.values(), key=lambda line: (_key(line, duplicate), -line.entry),
                     reverse=True)
    for position, line in enumerate(ordered):
        before = ordered[position - 1] if position else None
        same = before is not None and _key(before, duplicate) == _key(line, duplicate)
        line.rank = before.rank if same and before is not None else position + 1
    return ordered


def _count(lines: dict[int, Line], table: Played, field_: list[float] | None) -> None:
    """Add an ended table to its entries' lines (a fixed pair once, for its two seats)."""
    points = match_points(table)
    seen: set[int] = set()
    for seat, entry in enumerate(table.seats):
        team = seat % 2
        line = lines.get(entry)
        if line is None:
            continue
        line.partners.extend(e for s, e in enumerate(table.seats)
                             if s % 2 == team and e != entry)
        if entry in seen:
            continue
        seen.add(entry)
        line.points += points[team]
        line.played += 1
        line.wins += points[team] == WIN
        line.diff += table.totals[team] - table.totals[1 - team]
        if field_ is not None:
            line.field_score += field_[team]
        line.opponents.extend(sorted({e for s, e in enumerate(table.seats) if s % 2 != team}))


def _key(line: Line, duplicate: bool) -> tuple[float, ...]:
    if duplicate:
        return (round(line.field_score, 6), line.points, line.diff)
    return (line.points, line.diff)
