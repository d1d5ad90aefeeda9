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


def test_pimc_plays_legal_cards_from_the_observation_alone() -> None:
    """The baseline is as honest as the levels: two deals that differ only in hidden
    cards give the same card (tests/test_ai_bots.py's pair of deals).  Four worlds and
    no time cap, so that a busy machine cannot cut one of the two searches short."""
    first, second = hidden_swap()
    card = arena.PimcBot(5, budget_s=1e6, worlds=4).choose(first)
    assert card in first.legal_actions
    assert arena.PimcBot(5, budget_s=1e6, worlds=4).choose(second) == card


def test_hard_meets_pimc_in_the_arena() -> None:
    setup = arena.Setup("classic", "hard", "pimc", 4, 0.05)
    (outcome,) = arena.run(setup, 1)
    assert set(outcome.times) == {"hard", "pimc"}
    with pytest.raises(SystemExit):
        arena.main(["--a", "hard", "--b", "grandmaster"])


def test_next_worlds_aims_pimc_at_the_target_time() -> None:
    # One try: in proportion.  Two: on their line (10 ms at 20 worlds, 14 at 40: 18 at 60).
    assert arena.next_worlds([(20, 10.0)], 20.0) == 40
    assert arena.next_worlds([(20, 10.0), (40, 14.0)], 18.0) == 60
    # A line that does not climb (noise) falls back to the proportion of the last try.
    assert arena.next_worlds([(20, 10.0), (40, 9.0)], 18.0) == 80
    # At most four times or a quarter of the last try, never under one world.
    assert arena.next_worlds([(20, 10.0)], 1000.0) == 80
    assert arena.next_worlds([(20, 10.0)], 0.1) == 5
    assert arena.next_worlds([(1, 10.0)], 0.1) == 1
    assert arena.next_worlds([(1500, 10.0)], 100.0) == arena.MOST_WORLDS


def test_equal_worlds_calibrates_pimc_on_pilot_deals() -> None:
    """A tiny calibration: each round's worlds follow from the tries before it, the
    target is hard's mean over every round, and the pilot deals are not the measured."""
    setup = arena.Setup("classic", "hard", "pimc", 3, 0.02, pimc_worlds=6)
    calibration = arena.equal_worlds(setup, deals=1, rounds=2)
    tries = calibration["tries"]
    assert len(tries) == 2 and tries[0][0] == 6
    assert calibration["target"] == "hard" and calibration["target_ms"] > 0
    assert calibration["worlds"] == arena.next_worlds(tries, calibration["target_ms"])
    assert calibration["pilot_seed"] != setup.seed
    with pytest.raises(ValueError):
        arena.equal_worlds(arena.Setup("classic", "hard", "normal", 3, 0.02))


def test_pimc_worlds_option(capsys: pytest.CaptureFixture[str]) -> None:
    arena.main(["--variant", "classic", "--a", "pimc", "--b", "hard", "--deals", "1",
                "--seed", "2", "--budget", "0.02", "--pimc-worlds", "3", "--json"])
    report = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert report["pimc_worlds"] == 3 and report["calibration"] is None
    for times in report["decision_ms"].values():
        assert 0 < times["mean"] <= times["max"]
    for wrong in (["--pimc-worlds", "0"], ["--pimc-worlds", "many"],
                  ["--pimc-worlds", "equal", "--b", "normal"]):
        with pytest.raises(SystemExit):
            arena.main(["--a", "hard", "--b", "pimc", *wrong])
