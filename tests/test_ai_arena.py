"""A short arena run: the report has the promised shape (its numbers are not judged);
the PIMC baseline plays honestly."""

from __future__ import annotations

import json

import pytest

from ai import arena
from ai.plot import running_mean_svg
from tests.test_ai_bots import hidden_swap


def test_arena_json_report_has_the_promised_shape(capsys: pytest.CaptureFixture[str]) -> None:
    arena.main(["--variant", "classic", "--a", "hard", "--b", "easy", "--deals", "2",
                "--seed", "3", "--budget", "0.05", "--json"])
    captured = capsys.readouterr()
    report = json.loads(captured.out.strip().splitlines()[-1])
    assert report["deals"] == 2
    assert isinstance(report["mean"], float | int)
    low, high = report["ci95"]
    assert low <= report["mean"] <= high
    assert set(report["elo"]) == {"score", "diff", "ci95"}
    assert set(report["success"]) == {"a", "b"}
    for bot in report["success"].values():
        assert {"level", "bids", "made", "rate"} <= set(bot)
    assert set(report["decision_ms"]) == {"hard", "easy"}
    for times in report["decision_ms"].values():
        assert times["p50"] <= times["p99"] <= times["max"]
    assert "2/2 deals" in captured.err  # the progress bar


def test_arena_results_do_not_depend_on_the_number_of_processes() -> None:
    setup = arena.Setup("bulgarian", "normal", "easy", 5, 1.0)
    alone = arena.run(setup, 6, jobs=1)
    shared = arena.run(setup, 6, jobs=2)
    assert [o.lead for o in alone] == [o.lead for o in shared]


def test_duplicate_deals_of_equal_bots_cancel_out() -> None:
    setup = arena.Setup("bulgarian", "normal", "normal", 2, 1.0)
    assert all(o.lead == 0 for o in arena.run(setup, 5))


def test_elo_style_difference_follows_the_share_of_deals_won() -> None:
    # Won, lost, level, won: 2.5 of 4, the score of a player 89 points above the other.
    rating = arena.elo([12.0, -3.0, 0.0, 40.0])
    assert rating["score"] == 0.625 and rating["diff"] == 88.7
    low, high = rating["ci95"]
    assert low < 0 and high is None  # four deals: the interval's top is past a score of 1
    assert arena.elo([5.0, -5.0] * 50)["diff"] == 0.0
    even = arena.elo([5.0, -5.0] * 50)["ci95"]
    assert even[0] == -even[1] and 60 < even[1] < 80  # +-1.96 * 0.05 of score


def test_plot_is_an_svg_with_the_running_mean() -> None:
    svg = running_mean_svg([1.0, -2.0, 3.0, 4.0] * 5, "a < b")
    assert svg.startswith("<svg") and "polyline" in svg and "a &lt; b" in svg


def test_pimc_plays_legal_cards_from_the_observation_alone(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The baseline is as honest as the levels: two deals that differ only in hidden
    cards give the same card (tests/test_ai_bots.py's pair of deals).  Four worlds and
    no time cap, so that a busy machine cannot cut one of the two searches short."""
    monkeypatch.setattr(arena, "PIMC_WORLDS", 4)
    first, second = hidden_swap()
    card = arena.PimcBot(5, budget_s=1e6).choose(first)
    assert card in first.legal_actions
    assert arena.PimcBot(5, budget_s=1e6).choose(second) == card


def test_hard_meets_pimc_in_the_arena() -> None:
    setup = arena.Setup("classic", "hard", "pimc", 4, 0.05)
    (outcome,) = arena.run(setup, 1)
    assert set(outcome.times) == {"hard", "pimc"}
    with pytest.raises(SystemExit):
        arena.main(["--a", "hard", "--b", "grandmaster"])
