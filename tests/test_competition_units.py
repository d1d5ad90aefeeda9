"""Tournaments' pure parts: the scoring (match points, leavers, draws, duplicate scoring
against the field: docs/tournaments.md's worked example) and the Swiss pairing."""

from __future__ import annotations

import pytest

from app.competition.standings import DRAW, LOSS, WIN, Played, field_scores, match_points, standings
from app.competition.swiss import FIXED, ROTATING, field_size, pair

# docs/tournaments.md, "Duplicate scoring": three tables of a round; the first deal played
# at all three, the second at the first two (the third's match ended after one deal).
EXAMPLE = [
    Played(1, [1, 2, 1, 2], True, (21, 11), 0, (), [[16, 0], [5, 11]]),
    Played(1, [3, 4, 3, 4], True, (14, 37), 1, (), [[0, 26], [14, 2]]),
    Played(1, [5, 6, 5, 6], True, (16, 10), 0, (), [[16, 10]]),
]


def test_the_worked_example_of_duplicate_scoring() -> None:
    assert field_scores(EXAMPLE) == [[8.0, -8.0], [-19.0, 19.0], [11.0, -11.0]]


def test_duplicate_scores_sum_to_nothing_and_ignore_tables_still_on() -> None:
    on = Played(1, [7, 8, 7, 8], False, (0, 0), None, (), [[90, 0]])
    scores = field_scores([*EXAMPLE, on])
    assert scores[:3] == field_scores(EXAMPLE)
    assert scores[3] == [0.0, 0.0]
    assert sum(s[0] for s in scores) == pytest.approx(0)


def test_a_deal_played_at_one_table_alone_scores_nothing() -> None:
    assert field_scores([Played(1, [1, 2, 1, 2], True, (30, 0), 0, (), [[30, 0]])]) == [[0, 0]]


@pytest.mark.parametrize(("left", "winner", "points"), [
    ((), 0, (WIN, LOSS)),
    ((), 1, (LOSS, WIN)),
    ((), None, (DRAW, DRAW)),  # level at the time limit
    ((0,), 0, (LOSS, WIN)),  # the winners' human left: they lose the round
    ((3,), 0, (WIN, LOSS)),
    ((2, 1), 0, (LOSS, LOSS)),  # both teams had a leaver
])
def test_match_points(left: tuple[int, ...], winner: int | None,
                      points: tuple[float, float]) -> None:
    assert match_points(Played(1, [1, 2, 1, 2], True, (10, 5), winner, left)) == points


def test_swiss_standings_rank_by_points_then_difference_sharing_ranks() -> None:
    tables = [Played(1, [1, 2, 1, 2], True, (150, 40), 0),
              Played(1, [3, 4, 3, 4], True, (151, 141), 0),
              Played(1, [5, 6, 5, 6], False)]
    lines = standings(range(1, 7), tables, duplicate=False)
    assert [(line.entry, line.rank, line.points) for line in lines] == [
        (1, 1, 1.0), (3, 2, 1.0), (5, 3, 0.0), (6, 3, 0.0), (4, 5, 0.0), (2, 6, 0.0)]
    assert lines[0].opponents == [2] and lines[0].diff == 110


def test_duplicate_standings_rank_by_the_score_against_the_field() -> None:
    lines = standings(range(1, 7), EXAMPLE, duplicate=True)
    assert [line.entry for line in lines] == [4, 5, 1, 2, 6, 3]
    assert [line.field_score for line in lines] == [19, 11, 8, -8, -11, -19]


def test_rotating_partners_count_each_player_once() -> None:
    lines = standings(range(1, 5), [Played(1, [1, 2, 3, 4], True, (100, 50), 0)], False)
    by_entry = {line.entry: line for line in lines}
    assert by_entry[1].points == by_entry[3].points == WIN
    assert by_entry[1].partners == [3] and by_entry[2].opponents == [1, 3]


@pytest.mark.parametrize(("active", "teams", "size"), [
    (1, FIXED, 2), (3, FIXED, 4), (4, FIXED, 4), (1, ROTATING, 4), (5, ROTATING, 8)])
def test_field_size(active: int, teams: str, size: int) -> None:
    assert field_size(active, teams) == size


def test_the_first_round_is_drawn_and_every_entry_seated_once() -> None:
    ranked = standings(range(1, 9), [], False)
    tables = pair(ranked, FIXED, 1, seed=5)
    assert sorted(e for t in tables for e in t[:2]) == list(range(1, 9))
    assert all(t[0] == t[2] and t[1] == t[3] for t in tables)
    assert tables != pair(ranked, FIXED, 1, seed=6)


def test_later_rounds_pair_on_standings_avoiding_rematches() -> None:
    # Round 1: 1 beat 2, 3 beat 4.  The leaders 1 and 3 meet; 4 and 2 meet.
    played = [Played(1, [1, 2, 1, 2], True, (100, 0), 0),
              Played(1, [3, 4, 3, 4], True, (90, 0), 0)]
    assert pair(standings(range(1, 5), played, False), FIXED, 2, seed=1) == [
        [1, 3, 1, 3], [4, 2, 4, 2]]  # 4 lost by less than 2
    # Had 1 and 3 met already, 1 meets the next below it it has not met.
    played.append(Played(0, [1, 3, 1, 3], True, (10, 0), 0))
    assert pair(standings(range(1, 5), played, False), FIXED, 2, seed=1)[0][:2] == [1, 4]


def test_rotating_partners_change() -> None:
    first = [Played(1, [1, 2, 4, 3], True, (100, 0), 0)]  # 1 with 4, 2 with 3
    seats = pair(standings(range(1, 5), first, False), ROTATING, 2, seed=1)[0]
    teams = {frozenset(seats[0::2]), frozenset(seats[1::2])}
    assert frozenset({1, 4}) not in teams and frozenset({2, 3}) not in teams
