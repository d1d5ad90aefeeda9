"""The colver adapter (ai/sparring.py): the same cards in both numberings, the same rules
of play under the arena's house rules for it, nothing hidden handed over."""

from __future__ import annotations

import random

import colver
import pytest

from ai import arena
from ai.sparring import FROM_COLVER, colver_env, to_colver
from ai.view import view_of
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
