"""Hard's calls in context: a lower bar to overbid the opponents (``HARD_COMPETE``) and
to speak where a pass would end the deal unplayed (``HARD_LAST``); each touches those
positions and no other."""

from __future__ import annotations

import random
from collections.abc import Iterator

import pytest

from ai import bidding
from ai.points import is_point_auction
from engine.actions import BID, PASS, is_contract
from engine.deal import Phase
from engine.match import Match
from engine.observation import Observation
from engine.options import Options
from engine.variants import VARIANTS


def auction_positions(variant: str, deals: int = 60) -> Iterator[Observation]:
    """Every position of random auctions, mostly passes (so that many reach the last
    word), the other calls drawn among the legal ones."""
    rng = random.Random(5)
    for _ in range(deals):
        deck = list(range(32))
        rng.shuffle(deck)
        match = Match(Options.make(variant), dealer=rng.randrange(4), auto_deal=False)
        deal = match.start_deal(deck)
        while deal.phase == Phase.AUCTION:
            obs = match.observation(deal.to_move)
            yield obs
            call = PASS if rng.random() < 0.7 else rng.choice(obs.legal_actions)
            match.apply_action(call, deal.to_move)


@pytest.mark.parametrize("variant", ["bulgarian", "classic"])
def test_the_last_word_is_the_pass_that_ends_the_deal(variant: str) -> None:
    for seed in range(20):
        deck = list(range(32))
        random.Random(seed).shuffle(deck)
        match = Match(Options.make(variant), dealer=1, auto_deal=False)
        deal = match.start_deal(deck)
        words = []
        while deal.phase == Phase.AUCTION:
            words.append(bidding.last_word(match.observation(deal.to_move)))
            match.apply_action(PASS, deal.to_move)
        assert words == [False] * (len(words) - 1) + [True]
        assert len(words) == (8 if variant == "classic" else 4)


def test_compete_moves_the_bar_only_over_the_opponents(
        monkeypatch: pytest.MonkeyPatch) -> None:
    over, elsewhere = 0, 0
    for obs in auction_positions("bulgarian"):
        calls = {}
        for compete in (-1000.0, 0.0, 1000.0):
            monkeypatch.setattr(bidding, "HARD_COMPETE", compete)
            calls[compete] = bidding.hard_call(obs)
        opponents_hold = obs.declarer is not None and (obs.declarer - obs.seat) & 1 == 1
        can_bid = any(is_contract(a) for a in obs.legal_actions)
        if opponents_hold and can_bid:
            over += 1
            assert is_contract(calls[-1000.0]) and not is_contract(calls[1000.0])
        else:
            elsewhere += 1
            assert calls[-1000.0] == calls[0.0] == calls[1000.0]
    assert over >= 10 and elsewhere >= 10


@pytest.mark.parametrize("variant", ["bulgarian", "classic"])
def test_the_last_word_moves_the_bar_only_there(variant: str,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    last, elsewhere = 0, 0
    for obs in auction_positions(variant):
        calls = {}
        for shift in (-1000.0, 0.0, 1000.0):
            monkeypatch.setattr(bidding, "HARD_LAST", shift)
            calls[shift] = bidding.hard_call(obs)
        if bidding.last_word(obs):
            last += 1
            assert calls[-1000.0] >= BID and calls[1000.0] == PASS
        else:
            elsewhere += 1
            assert calls[-1000.0] == calls[0.0] == calls[1000.0]
    assert last >= 5 and elsewhere >= 10


@pytest.mark.parametrize("variant", list(VARIANTS))
def test_every_variant_has_its_bid_table_and_threshold(variant: str) -> None:
    """What a new variant brings for hard's calls (docs/variants.md): its cells of
    ai/bid_table.json and its threshold; none for an auction of point bids, which hard
    searches (a threshold asked for is refused, not made up)."""
    options = Options.make(variant)
    if is_point_auction(next(auction_positions(variant, 1))):
        with pytest.raises(ValueError, match="no threshold"):
            bidding.hard_threshold(options)
        return
    table = bidding.load_table()
    for contract in options.contracts:
        assert f"{variant}:{bidding.contract_kind(contract)}:all" in table
    assert isinstance(bidding.hard_threshold(options), float)  # KeyError without one
