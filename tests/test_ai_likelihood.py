"""How hard weighs sampled deals by the cards the others chose (ai/likelihood.py)."""

from __future__ import annotations

import random

import pytest

from ai import hard, likelihood
from ai.bot import decide, make_bot
from ai.inference import infer, sample
from ai.likelihood import PlayModel, likely_deal
from engine.cards import card_name, parse_card
from engine.deal import Phase
from engine.match import Match
from engine.observation import Observation
from engine.options import Options
from tests.positions import deck_for, position

HEARTS = 2
LOW_CLUBS = sum(1 << parse_card(c) for c in ("7C", "8C", "9C"))


def ten_on_the_ace() -> Observation:
    """Hearts by seat 3; seat 0 leads AC, seat 1 (an opponent) follows with TC: seat 2's
    view.  A player with a cheaper club would have kept the ten."""
    hands = ["AC KS QS JS 9S 8S 7S AH", "TC 7C 8C 9C JD QD KD AD",
             "JC QC KC 7D 8D 9D TD TS", "AS 7H 8H 9H TH JH QH KH"]
    return position(hands, 3, HEARTS, "AC TC", seat=2)


def test_a_ten_thrown_on_an_opponents_ace_makes_cheaper_clubs_unlikely() -> None:
    obs = ten_on_the_ace()
    model = PlayModel(obs)
    assert [(p.seat, card_name(p.card)) for p in model.plays] == [(1, "TC")]  # no lead
    knowledge = infer(obs)
    rng = random.Random(1)
    held = 0
    for _ in range(300):
        hands = sample(knowledge, rng)
        cheaper = bool(hands[1] & LOW_CLUBS)
        held += cheaper
        assert model.weight(hands) == (likelihood.MISMATCH if cheaper else 1.0)
    assert 100 < held < 280  # both kinds of deal were weighed


def share_with_low_clubs(obs: Observation, model: PlayModel | None, n: int = 1000) -> float:
    """How often seat 1 gets a club cheaper than the ten in the deals hard solves."""
    knowledge = infer(obs)
    rng = random.Random(3)
    return sum(bool(likely_deal(knowledge, model, rng)[1] & LOW_CLUBS) for _ in range(n)) / n


@pytest.mark.slow
def test_resampling_draws_the_deals_that_explain_the_plays() -> None:
    obs = ten_on_the_ace()
    plain = share_with_low_clubs(obs, None)
    read = share_with_low_clubs(obs, PlayModel(obs))
    assert plain > 0.6  # about 0.74
    # The posterior, when a deal with a cheaper club weighs MISMATCH (about 0.41); eight
    # candidates a draw come near it (about 0.47), far from the plain draw.
    posterior = plain * likelihood.MISMATCH / (plain * likelihood.MISMATCH + 1 - plain)
    assert read < plain - 0.15
    assert abs(read - posterior) < 0.12


def history_to(seed: int, tricks: int) -> Match | None:
    """A bulgarian deal of normal bots (dealer 3) at its ``tricks``-th trick's start; None
    when a combination was announced (its hidden cards would have to be placed too)."""
    deck = list(range(32))
    random.Random(seed).shuffle(deck)
    match = Match(Options.make("bulgarian"), dealer=3, auto_deal=False)
    deal = match.start_deal(deck)
    bot = make_bot("normal")
    while deal.phase != Phase.PLAY or len(deal.tricks) < tricks or deal.trick:
        if deal.is_over:
            return None
        match.apply_action(bot.choose(match.observation(deal.to_move)))
    return None if deal.announcements else match


def test_hard_reads_the_plays_from_the_observation_alone(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Mid-deal, with six cards of the others to read: the same deal replayed with
    other hidden hands (a deal the seat cannot tell apart) gives the same card."""
    monkeypatch.setattr(hard, "WORLDS", 3)
    match = next(m for seed in range(50) if (m := history_to(seed, 3)) is not None)
    deal = match.deal
    assert deal is not None
    seat = deal.to_move
    obs = match.observation(seat)
    assert len(PlayModel(obs).plays) == 6 and len(obs.legal_actions) > 1
    hands = sample(infer(obs), random.Random(7))
    hands[seat] = obs.hand
    assert hands != deal.hands  # other hidden hands ...
    for leader, cards in deal.tricks:
        for i, card in enumerate(cards):
            hands[(leader + i) % 4] |= 1 << card
    names = [" ".join(card_name(c) for c in range(32) if h >> c & 1) for h in hands]
    other = Match(Options.make("bulgarian"), dealer=3, auto_deal=False)
    other.start_deal(deck_for(names, 3))
    for who, action in deal.history:
        other.apply_action(action, who)
    assert other.observation(seat) == obs  # ... that the seat cannot tell apart
    assert decide("hard", other.observation(seat), seed=5, budget_s=60) == \
        decide("hard", obs, seed=5, budget_s=60)


def test_a_seats_factor_is_kept_for_its_hand_and_its_hand_alone() -> None:
    """One model weighs a decision's many deals, keeping each seat's factor by its hand;
    every deal must weigh what a fresh model (nothing kept) gives it, in any order."""
    match = next(m for seed in range(50) if (m := history_to(seed, 3)) is not None)
    assert match.deal is not None
    obs = match.observation(match.deal.to_move)
    knowledge = infer(obs)
    rng = random.Random(2)
    deals = [sample(knowledge, rng) for _ in range(60)]
    deals += deals[:20]  # hands met before
    kept = PlayModel(obs)
    weights = [kept.weight(d) for d in deals]
    assert weights == [PlayModel(obs).weight(d) for d in deals]
    assert len(set(weights)) > 1  # the deals differ in how well they explain the plays
