"""bench/analysis.py's mix-weighted mean: levels compared kind by kind, whatever their
own shares of calls and cards."""

from __future__ import annotations

from typing import Any

import pytest

from bench.analysis import kind_mix, mix_weighted_loss


def _decisions(bids: int, bid_loss: float, cards: int, card_loss: float) -> list[list[Any]]:
    return [["bid", bid_loss, 0.0]] * bids + [["card", card_loss, 0.0]] * cards


def test_a_level_with_more_calls_is_not_worse_for_that_alone() -> None:
    # hard loses exactly what normal loses on each kind, but faces calls twice as often
    by = {("normal", m): _decisions(2, 20.0, 8, 2.0) for m in range(4)}
    by |= {("hard", m): _decisions(4, 20.0, 6, 2.0) for m in range(4)}
    plain = {lv: sum(d[1] for m in range(4) for d in by[lv, m])
             / sum(len(by[lv, m]) for m in range(4)) for lv in ("normal", "hard")}
    assert plain["hard"] > plain["normal"]
    mix = kind_mix(by)
    assert mix == pytest.approx({"bid": 0.3, "card": 0.7})
    assert mix_weighted_loss(by, "hard", list(range(4)), mix) == pytest.approx(
        mix_weighted_loss(by, "normal", list(range(4)), mix))


def test_each_kind_weighs_its_share_of_all_decisions() -> None:
    by = {("normal", 0): _decisions(1, 30.0, 3, 4.0), ("hard", 0): _decisions(3, 10.0, 1, 2.0)}
    mix = kind_mix(by)  # 4 calls and 4 cards
    assert mix_weighted_loss(by, "normal", [0], mix) == pytest.approx(0.5 * 30 + 0.5 * 4)
    assert mix_weighted_loss(by, "hard", [0, 0], mix) == pytest.approx(0.5 * 10 + 0.5 * 2)


def test_a_kind_a_level_never_faced_is_left_out() -> None:
    by = {("normal", 0): _decisions(2, 10.0, 2, 2.0), ("hard", 0): _decisions(0, 0.0, 4, 3.0)}
    assert mix_weighted_loss(by, "hard", [0], kind_mix(by)) == pytest.approx(3.0)
