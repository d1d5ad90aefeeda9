"""The bots in Coinche: only legal actions under every preset, decisions from the
observation alone, point bids read by the inference, and sane calls in plain cases."""

from __future__ import annotations

import random

import pytest

from ai import LEVELS, Level, decide, hard, make_bot, point_search
from ai.inference import NAMED_TOP_WEIGHT, infer
from ai.points import easy_point_call, normal_point_call, standing
from ai.review import review
from engine.actions import (
    COINCHE,
    PASS,
    POINT_BID,
    POINT_BID_END,
    Action,
    contract_of,
    parse_action,
    point_value,
)
from engine.cards import HEARTS, JACK, NINE, SPADES, card_name, parse_card
from engine.match import Match
from engine.observation import Observation
from engine.options import Options
from engine.record import write_record
from tests.positions import deck_for

FAST = 0.01  # hard's time cap where legality alone is checked
PRESETS = ("default", "ffb_contree", "ffb_coinche", "pagat", "bga_coinche", "colver",
           "club_simple")
WEAK = "7C 8C 7D 8D 7H 8H 7S 9S"


def auction(hands: list[str], calls: str = "", preset: str = "default") -> Observation:
    """Dealer 3 (seat 0 speaks first), ``hands`` in seat order, ``calls`` made: the view
    of the seat to call next."""
    match = Match(Options.make("coinche", preset=preset), dealer=3, auto_deal=False)
    match.start_deal(deck_for(hands, 3))
    for call in calls.split():
        match.apply_action(parse_action(call))
    seat = match.current_player()
    assert seat is not None
    return match.observation(seat)


def hands_with(seat: int, hand: str, rng_seed: int = 1) -> list[str]:
    """``hand`` at ``seat``, the other cards dealt at random to the others."""
    mine = {parse_card(c) for c in hand.split()}
    rest = [c for c in range(32) if c not in mine]
    random.Random(rng_seed).shuffle(rest)
    hands = []
    for s in range(4):
        if s == seat:
            hands.append(hand)
        else:
            hands.append(" ".join(card_name(c) for c in rest[:8]))
            rest = rest[8:]
    return hands


def bid_of(action: Action) -> tuple[int, int]:
    assert POINT_BID <= action < POINT_BID_END, action
    return point_value(action), contract_of(action)


# --------------------------------------------------------------- legality and honesty


@pytest.mark.parametrize("preset", PRESETS)
def test_easy_and_normal_play_only_legal_actions(preset: str) -> None:
    rng = random.Random(PRESETS.index(preset))
    states = 0
    for game in range(6):
        match = Match(Options.make("coinche", preset=preset), seed=game)
        bots = [make_bot(level) for level in (Level.EASY, Level.NORMAL)]
        for _ in range(2):
            deal = match.deal
            assert deal is not None
            while not deal.is_over and not match.is_over:
                seat = match.current_player()
                assert seat is not None
                obs = match.observation(seat)
                answers = [bot.choose(obs) for bot in bots]
                assert all(a in obs.legal_actions for a in answers)
                states += 1
                match.apply_action(rng.choice([*answers, rng.choice(obs.legal_actions)]))
            if match.is_over:
                break
    assert states > 100


@pytest.mark.slow
def test_hard_plays_only_legal_actions_under_every_preset(monkeypatch: pytest.MonkeyPatch
                                                          ) -> None:
    monkeypatch.setattr(point_search, "HARD_WORLDS", 2)
    rng = random.Random(3)
    for game, preset in enumerate(PRESETS):
        match = Match(Options.make("coinche", preset=preset), seed=game)
        bot = make_bot(Level.HARD, seed=game, budget_s=FAST)
        deal = match.deal
        assert deal is not None
        while not deal.is_over:
            seat = match.current_player()
            assert seat is not None
            obs = match.observation(seat)
            action = bot.choose(obs)
            assert action in obs.legal_actions
            match.apply_action(action if rng.random() < 0.7 else rng.choice(obs.legal_actions))


def twins(calls: str) -> tuple[Observation, Observation]:
    """Seat 0's view after ``calls`` in two deals that differ only in the hidden hands
    (seats 1 and 3 trade theirs): the same observation."""
    hands = hands_with(0, "JH 9H AH TH AS KS 7D 8C")
    other = [hands[0], hands[3], hands[2], hands[1]]
    first, second = auction(hands, calls), auction(other, calls)
    assert first == second
    return first, second


@pytest.mark.slow
@pytest.mark.parametrize("calls", ["", "100H pass pass pass"])
def test_every_level_decides_from_the_observation_alone(
    monkeypatch: pytest.MonkeyPatch, calls: str,
) -> None:
    """At seat 0's first call, and at its first card (it leads: dealer 3)."""
    monkeypatch.setattr(point_search, "HARD_WORLDS", 4)
    monkeypatch.setattr(hard, "WORLDS", 4)
    first, second = twins(calls)
    for level in LEVELS:
        assert decide(level, first, seed=5, budget_s=60) == \
            decide(level, second, seed=5, budget_s=60)


# ------------------------------------------------------------------- the auction read


def test_standing_reads_the_last_bid_and_its_coinche() -> None:
    obs = auction(hands_with(0, WEAK), "80H 90S pass pass coinche")
    now = standing(obs)
    assert now.bid == parse_action("90S") and now.declarer == 1 and now.multiplier == 2
    assert (now.value, now.strain) == (90, SPADES)


def test_a_point_bid_makes_its_strains_jack_and_nine_likelier() -> None:
    obs = auction(hands_with(0, WEAK), "pass 100H")
    weights = infer(obs).weights
    jack, nine = HEARTS * 8 + JACK, HEARTS * 8 + NINE
    assert weights[1][jack] == weights[1][nine] == NAMED_TOP_WEIGHT
    assert weights[3][jack] == 1.0


# ----------------------------------------------------------------- easy and normal calls


def test_normal_bids_high_with_a_strong_hand_and_passes_a_weak_one() -> None:
    strong = auction(hands_with(0, "JH 9H AH TH KH AS AC AD"))
    value, strain = bid_of(normal_point_call(strong))
    assert strain == HEARTS and value >= 110
    assert normal_point_call(auction(hands_with(0, WEAK))) == PASS


def test_normal_raises_its_partner_with_support_and_coinches_a_hopeless_bid() -> None:
    # Partner (seat 0) opened 80 hearts; seat 2 holds the nine, an ace and two side aces.
    support = auction(hands_with(2, "9H AH 7H AS AC AD 7S 8D"), "80H pass")
    value, strain = bid_of(normal_point_call(support))
    assert strain == HEARTS and value > 80
    # Seat 1 bid 160 spades; seat 2 holds the four top spades.
    stop = auction(hands_with(2, "JS 9S AS TS AH AD 7C 8C"), "pass 160S")
    assert normal_point_call(stop) == COINCHE


def test_easy_opens_80_with_a_jack_and_two_more_trumps_only() -> None:
    assert bid_of(easy_point_call(auction(hands_with(0, "JD 7D 8D 7C 8C 7H 8H 7S")))) == \
        (80, 1)
    assert easy_point_call(auction(hands_with(0, WEAK))) == PASS
    assert easy_point_call(auction(hands_with(2, "JD 7D 8D 7C 8C 7H 8H 7S"), "80S pass")) \
        == PASS


# ------------------------------------------------------------------------- hard calls


@pytest.mark.slow
def test_hard_values_bids_coinche_and_pass_on_solved_deals(monkeypatch: pytest.MonkeyPatch
                                                           ) -> None:
    monkeypatch.setattr(point_search, "HARD_WORLDS", 8)
    rng = random.Random(1)
    strong = auction(hands_with(0, "JH 9H AH TH KH AS AC AD"))
    value, strain = bid_of(point_search.hard_point_call(strong, rng, float("inf")))
    assert strain == HEARTS and value >= 100
    assert point_search.hard_point_call(auction(hands_with(0, WEAK)), rng,
                                        float("inf")) == PASS
    stop = auction(hands_with(2, "JS 9S AS TS AH AD 7C 8C"), "pass 160S")
    assert point_search.hard_point_call(stop, rng, float("inf")) == COINCHE


@pytest.mark.slow
def test_the_review_judges_point_bids_and_coinches() -> None:
    match = Match(Options.make("coinche"), seed=4)
    bots = [make_bot(Level.NORMAL) for _ in range(4)]
    deal = match.deal
    assert deal is not None
    while not deal.is_over:
        seat = match.current_player()
        assert seat is not None
        match.apply_action(bots[seat].choose(match.observation(seat)))
    result = review(write_record(match), samples=2, kinds=["bid"])
    assert result.decisions
    assert all(d.kind == "bid" for d in result.decisions)
    assert any(POINT_BID <= parse_action(c.action) < POINT_BID_END
               for d in result.decisions for c in d.choices)


def test_the_review_takes_a_coinche_out_of_turn_from_its_seat() -> None:
    """Seat 0 coinches before seat 2 speaks (``any_time``): the turn goes to seat 1, whose
    pass or surcoinche is judged as its own, and seat 3's after it; the coinche itself, the
    seat's one action then, is not a choice judged."""
    match = Match(Options.make("coinche", coinche_timing="any_time"), seed=5, dealer=3)
    for seat, call in ((0, "pass"), (1, "100C"), (0, "coinche"), (1, "pass"), (2, "pass"),
                       (3, "pass")):
        match.apply_action(parse_action(call), seat)
    rng = random.Random(5)
    deal = match.deal
    assert deal is not None and deal.phase == "play"
    while not deal.is_over:
        match.apply_action(rng.choice(match.legal_actions()))
    result = review(write_record(match), samples=2, kinds=["bid"], seats=(0, 1, 3))
    judged = [(d.step, d.seat, d.played, sorted(c.action for c in d.choices))
              for d in result.decisions if d.step > 1]
    assert judged == [(3, 1, "pass", ["pass", "surcoinche"]),
                      (5, 3, "pass", ["pass", "surcoinche"])]
