"""bench/auction.py skips the deals whose auctions agree; that is exact only because the
same auction is then played the same, card for card."""

from __future__ import annotations

import pytest

from ai import bidding, hard
from ai.arena import deck_of
from bench import auction
from engine.options import Options


@pytest.mark.slow
def test_the_same_auction_is_played_the_same(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(hard, "WORLDS", 2)
    options = Options.make("bulgarian")
    calls = [bidding.hard_call] * 4
    leads = []
    for index in range(8):
        deck = deck_of(1, index)
        first, made = auction.auction(options, deck, index % 4, calls)
        if first.deal is None or first.deal.thrown_in:
            continue
        second, again = auction.auction(options, deck, index % 4, calls)
        assert made == again
        normal = [False, True, False, True]  # hard's pair against normal's
        leads.append((auction.team_lead(first, auction.players(normal, 1, index)),
                      auction.team_lead(second, auction.players(normal, 1, index))))
    assert len(leads) >= 3
    assert all(x == y for x, y in leads)


def test_a_change_that_changes_no_call_costs_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(auction, "CHANGES", {"HARD_SHIFT": bidding.HARD_SHIFT})
    for opponents in ("hard", "normal"):
        assert [auction.compare(("classic", opponents, 1, i)) for i in range(6)] == \
            [(0.0, 0)] * 6


@pytest.mark.slow
def test_a_change_that_changes_calls_is_played_out(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(hard, "WORLDS", 2)
    monkeypatch.setattr(auction, "CHANGES", {"HARD_SHIFT": -1000.0})  # B bids
    results = [auction.compare(("classic", "hard", 1, i)) for i in range(4)]
    assert sum(differed for _, differed in results) >= 3
    assert all(lead != 0 for lead, differed in results if differed)
    assert bidding.HARD_SHIFT > -1000  # B's constants are set for its calls only
