"""The rating of rated matches (app/ratings.py): who moves, which way, and what stays put."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from ai import LEVELS
from app import ratings
from app.ratings import NEW, Rating
from engine.variants import VARIANTS

STRONG = Rating(30.0, 2.0)
WEAK = Rating(20.0, 2.0)
MIDDLE = Rating(26.0, 4.5)


def teams(
    a: Rating = NEW, b: Rating = NEW, c: Rating = NEW, d: Rating = NEW,
) -> tuple[ratings.Team, ratings.Team]:
    return (a, b), (c, d)


def test_winning_raises_and_losing_lowers_both_partners() -> None:
    for winner in (0, 1):
        new = ratings.rate(teams(MIDDLE, STRONG, WEAK, NEW), winner)
        for side, (before, after) in enumerate(zip(teams(MIDDLE, STRONG, WEAK, NEW), new,
                                                   strict=True)):
            for old, now in zip(before, after, strict=True):
                assert (now.mu > old.mu) == (side == winner)
                assert now.sigma < old.sigma  # every match teaches something


def test_an_upset_moves_ratings_more_than_the_expected_result() -> None:
    expected = ratings.rate(teams(STRONG, STRONG, WEAK, WEAK), 0)[0][0].mu - STRONG.mu
    upset = STRONG.mu - ratings.rate(teams(STRONG, STRONG, WEAK, WEAK), 1)[0][0].mu
    assert upset > expected > 0


def test_a_bots_rating_never_moves_yet_counts_for_the_others() -> None:
    for variant in VARIANTS:
        hard = ratings.bot_rating(variant, "hard")
        easy = ratings.bot_rating(variant, "easy")
        for winner in (0, 1):
            (mine, partner), (foe_1, foe_2) = ratings.rate(teams(NEW, hard, easy, NEW), winner)
            assert (partner, foe_1) == (hard, easy)
            assert mine != NEW and foe_2 != NEW
        # winning beside a hard bot against easy ones earns less than the reverse
        with_hard = ratings.rate(teams(NEW, hard, easy, easy), 0)[0][0].mu
        with_easy = ratings.rate(teams(NEW, easy, hard, hard), 0)[0][0].mu
        assert NEW.mu < with_hard < with_easy


def test_the_bots_levels_are_rated_in_their_order() -> None:
    for variant in VARIANTS:
        levels = [ratings.bot_rating(variant, level) for level in LEVELS]
        assert all(r.bot for r in levels)
        assert [r.mu for r in levels] == sorted(r.mu for r in levels)
        assert len({r.mu for r in levels}) == len(levels)


def test_a_forfeit_is_a_loss_for_the_team_that_left() -> None:
    for left in (0, 1):
        match = teams(STRONG, MIDDLE, WEAK, NEW)
        assert ratings.forfeit(match, left) == ratings.rate(match, 1 - left)
        stayed = ratings.forfeit(match, left)[1 - left]
        assert all(after.mu > before.mu for before, after in zip(match[1 - left], stayed,
                                                                  strict=True))


def test_swapping_the_teams_or_the_partners_swaps_the_results() -> None:
    a, b, c, d = MIDDLE, STRONG, WEAK, NEW
    for winner in (0, 1):
        (na, nb), (nc, nd) = ratings.rate(teams(a, b, c, d), winner)
        (sc, sd), (sa, sb) = ratings.rate(teams(c, d, a, b), 1 - winner)
        assert _close([na, nb, nc, nd], [sa, sb, sc, sd])
        (pb, pa), (pd, pc) = ratings.rate(teams(b, a, d, c), winner)
        assert _close([na, nb, nc, nd], [pa, pb, pc, pd])


def test_between_equal_teams_the_winners_gain_what_the_losers_lose() -> None:
    (w1, w2), (l1, l2) = ratings.rate(teams(), 0)
    assert w1.mu - NEW.mu == pytest.approx(NEW.mu - l1.mu)
    assert w1 == w2 and l1 == l2
    assert ratings.win_chance(teams()) == 0.5


def test_the_win_chance_favours_the_stronger_team_and_sums_to_one() -> None:
    strong_first = ratings.win_chance(teams(STRONG, MIDDLE, WEAK, MIDDLE))
    weak_first = ratings.win_chance(teams(WEAK, MIDDLE, STRONG, MIDDLE))
    assert 0.5 < strong_first < 1
    assert strong_first + weak_first == pytest.approx(1)
    # the less is known of the players, the nearer to even the forecast
    unsure = Rating(STRONG.mu, 8.0)
    assert 0.5 < ratings.win_chance(teams(unsure, MIDDLE, WEAK, MIDDLE)) < strong_first


def test_the_same_match_gives_the_same_ratings() -> None:
    match = teams(STRONG, MIDDLE, WEAK, NEW)
    assert ratings.rate(match, 1) == ratings.rate(match, 1)


def test_provisional_until_enough_matches_and_certainty() -> None:
    settled = Rating(25.0, ratings.PROVISIONAL_SIGMA - 0.01)
    unsure = Rating(25.0, ratings.PROVISIONAL_SIGMA + 0.01)
    enough = ratings.PROVISIONAL_MATCHES
    assert ratings.provisional(NEW, 0)
    assert ratings.provisional(settled, enough - 1)
    assert ratings.provisional(unsure, enough + 100)
    assert not ratings.provisional(settled, enough)


def test_the_match_count_decides_for_a_player_with_bots() -> None:
    """The rule's two halves agree: beside and against normal bots, winning every other
    match, a player's sigma passes its threshold before the match count does."""
    normal = ratings.bot_rating("bulgarian", "normal")
    me = NEW
    for match in range(1, ratings.PROVISIONAL_MATCHES + 1):
        me = ratings.rate(((me, normal), (normal, normal)), match % 2)[0][0]
        assert ratings.provisional(me, match) == (match < ratings.PROVISIONAL_MATCHES)
    assert me.sigma < ratings.PROVISIONAL_SIGMA


def test_display_values() -> None:
    assert ratings.estimate(NEW) == 1500
    assert ratings.display(NEW) == ratings.estimate(NEW) - ratings.margin(NEW)
    assert ratings.display(STRONG) > ratings.display(WEAK)
    assert ratings.estimate(STRONG) - ratings.estimate(WEAK) == 400  # 40 points a mu
    # the same estimate, less known, shows lower on a leaderboard
    assert ratings.display(Rating(30.0, 5.0)) < ratings.display(STRONG)


@pytest.mark.parametrize("call", [
    lambda: ratings.rate(teams(), 2),
    lambda: ratings.forfeit(teams(), -1),
    lambda: ratings.bot_rating("bulgarian", "expert"),
    lambda: ratings.bot_rating("belot", "hard"),
    lambda: Rating(25.0, 0.0),
])
def test_bad_input_is_refused_with_a_clear_error(call: Callable[[], object]) -> None:
    with pytest.raises(ValueError):
        call()


def _close(first: list[Rating], second: list[Rating]) -> bool:
    return all(a.mu == pytest.approx(b.mu) and a.sigma == pytest.approx(b.sigma)
               for a, b in zip(first, second, strict=True))
