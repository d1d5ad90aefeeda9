"""The colver adapter (ai/sparring.py): the same cards in both numberings, the same rules
of play under the arena's house rules for it, nothing hidden handed over."""

from __future__ import annotations

import random

import colver
import pytest

from ai import arena
from ai.sparring import (
    CALL_FROM_COLVER,
    FROM_COLVER,
    call_to_colver,
    colver_deal,
    colver_env,
    to_colver,
)
from ai.view import view_of
from engine.actions import action_name
from engine.cards import SPADES, card_name, cards_of
from engine.deal import Phase
from engine.match import Match
from engine.options import Options
from tests.positions import position
from tests.test_ai_bots import random_options

SYMBOLS = {"♠": "S", "♥": "H", "♦": "D", "♣": "C"}


def test_every_card_has_the_same_name_in_colver() -> None:
    assert sorted(FROM_COLVER) == list(range(32))
    for card in range(32):
        name = colver.Env.card_name(to_colver(card))
        rank, suit = name[:-1], SYMBOLS[name[-1]]
        assert ("T" if rank == "10" else rank) + suit == card_name(card)


def test_colver_allows_exactly_our_cards_under_the_arenas_rules() -> None:
    """Random classic deals: at every card, the cards colver's engine allows (from the
    seat's hand and the tricks replayed) are the engine's legal cards under the house
    rules the arena gives colver, and include them under any other house rules."""
    rng = random.Random(4)
    compared = 0
    for game in range(80):
        arenas = game % 2 == 0
        options = (Options.make("classic", **arena.COLVER_RULES["classic"]) if arenas
                   else random_options(rng, "classic"))
        match = Match(options, seed=game)
        deal = match.deal
        assert deal is not None
        while not deal.is_over:
            seat = deal.to_move
            obs = match.observation(seat)
            if deal.phase == Phase.PLAY:
                env = colver_env(obs, rng)
                allowed = sum(1 << FROM_COLVER[a] for a in env.legal_actions())
                legal = view_of(obs).legal
                assert allowed == legal if arenas else allowed & legal == legal
                compared += 1
            match.apply_action(rng.choice(obs.legal_actions))
    assert compared > 1000


def test_colver_is_handed_nothing_hidden() -> None:
    """Two deals that differ only in cards seat 1 cannot see (seats 2 and 3 trade two
    spades for two diamonds) give it equal observations and colver the same deal."""
    plays = "AH 7H 8H 9H AD"
    first = position(["JS 9S AS AH TH AD KC QC", "7H KH 7D 8D 7C 8C 7S QS",
                      "8H QH 8S TS AC TC 9C JC", "9H JH 9D TD JD QD KD KS"],
                     0, SPADES, plays, 1, "classic")
    second = position(["JS 9S AS AH TH AD KC QC", "7H KH 7D 8D 7C 8C 7S QS",
                       "8H QH KD QD AC TC 9C JC", "9H JH 9D TD JD 8S TS KS"],
                      0, SPADES, plays, 1, "classic")
    assert first == second
    envs = [colver_env(obs, random.Random(5)) for obs in (first, second)]
    assert envs[0].to_cfn() == envs[1].to_cfn()
    assert set(envs[0].get_hands()[1]) == {to_colver(c) for c in cards_of(first.hand)}


def test_hard_meets_colver_in_the_arena() -> None:
    setup = arena.Setup("classic", "hard", "colver", 6, 0.02)
    (outcome,) = arena.run(setup, 1)
    assert set(outcome.times) == {"hard", "colver"}
    with pytest.raises(SystemExit):
        arena.main(["--variant", "bulgarian", "--a", "hard", "--b", "colver"])


def test_every_coinche_call_has_the_same_name_in_colver() -> None:
    assert sorted(CALL_FROM_COLVER) == list(range(43))
    for number, call in CALL_FROM_COLVER.items():
        name = colver.Env.action_name(number, 0)
        for symbol, suit in SYMBOLS.items():
            name = name.replace(symbol, suit)
        assert name.lower() == action_name(call).lower()
        assert call_to_colver(call) == number


def test_colver_allows_exactly_our_calls_and_cards_under_its_preset() -> None:
    """Random coinche deals under the ``colver`` preset: at every decision, the calls and
    cards colver's engine allows (the deal rebuilt from the seat's view, the actions
    replayed) are ours."""
    rng = random.Random(6)
    compared = 0
    for game in range(40):
        match = Match(Options.make("coinche", **arena.COLVER_RULES["coinche"]), seed=game)
        deal = match.deal
        assert deal is not None
        while not deal.is_over:
            seat = deal.to_move
            obs = match.observation(seat)
            env, history = colver_deal(obs, rng)
            for action in history:
                env.step(action)
            if deal.phase == Phase.PLAY:
                allowed = sum(1 << FROM_COLVER[a] for a in env.legal_actions())
                assert allowed == view_of(obs).legal
            else:
                assert sorted(env.legal_actions()) == sorted(call_to_colver(a)
                                                             for a in obs.legal_actions)
            compared += 1
            match.apply_action(rng.choice(obs.legal_actions))
    assert compared > 500


@pytest.mark.slow
def test_hard_meets_colvers_agent_in_coinche() -> None:
    setup = arena.Setup("coinche", "hard", "colver", 2, 0.02)
    (outcome,) = arena.run(setup, 1)
    assert set(outcome.times) == {"hard", "colver"}
