"""Every level answers with a legal action, from the observation alone, repeatably."""

from __future__ import annotations

import pickle
import random
from typing import Any

import pytest

from ai import LEVELS, Level, decide, hard, make_bot
from ai.solver import SearchTimeout, Solver
from ai.view import view_of
from engine.actions import BID, PASS
from engine.cards import NO_TRUMPS
from engine.match import Match
from engine.observation import Observation
from engine.options import Options
from engine.variants import VARIANTS

FAST = 0.01  # hard's time cap in these tests: legality does not depend on it


def random_options(rng: random.Random, variant: str) -> Options:
    """A variant with a random value for every house rule that applies to it."""
    flags: dict[str, Any] = {}
    for name, (_, values) in VARIANTS[variant].flag_table().items():
        if values:
            flags[name] = rng.choice(values)
    return Options.make(variant, **flags)


@pytest.mark.slow
def test_every_level_plays_only_legal_actions_under_random_house_rules() -> None:
    rng = random.Random(7)
    states = 0
    for game in range(64):
        variant = list(VARIANTS)[game % 2]
        match = Match(random_options(rng, variant), seed=game)
        bots = {level: make_bot(level, seed=game, budget_s=FAST) for level in LEVELS}
        for _ in range(3):  # three deals: later ones have scores, pools and gathered decks
            deal = match.deal
            assert deal is not None
            while not deal.is_over and not match.is_over:
                seat = match.current_player()
                assert seat is not None
                obs = match.observation(seat)
                asked = LEVELS if states % 4 == 0 else (Level.EASY, Level.NORMAL)
                answers = [bots[level].choose(obs) for level in asked]
                for action in answers:
                    assert action in obs.legal_actions
                states += 1
                # Mix the levels' choices with random ones to reach odd positions.
                match.apply_action(rng.choice([*answers, rng.choice(obs.legal_actions)]))
            if match.is_over:
                break
    assert states > 4000


def first_card_observation(deck: list[int]) -> Observation:
    """Seat 0 bids spades, everybody else passes; seat 0's view at its first card."""
    match = Match(Options.make("bulgarian"), dealer=3, auto_deal=False)
    match.start_deal(deck)
    for call in (BID + 3, PASS, PASS, PASS):
        match.apply_action(call)
    return match.observation(0)


def hidden_swap() -> tuple[Observation, Observation]:
    """Seat 0's first-card view in two deals that differ only in the hidden hands (seats
    1 and 3 swap cards): the same observation, so a bot must answer both alike."""
    deck = list(range(32))
    random.Random(3).shuffle(deck)
    other = list(deck)
    # Dealer 3: seat 1 gets deck[3:6], seat 3 gets deck[9:12].
    other[3:6], other[9:12] = deck[9:12], deck[3:6]
    first, second = first_card_observation(deck), first_card_observation(other)
    assert first == second
    return first, second


@pytest.mark.slow
def test_bots_decide_from_the_observation_alone(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(hard, "WORLDS", 10)  # whole deals, each solved: keep the test short
    first, second = hidden_swap()
    for level in LEVELS:
        assert decide(level, first, seed=5, budget_s=60) == decide(level, second, seed=5,
                                                                   budget_s=60)
    # A copy that went through pickle (as to a process pool) is just as good.
    copy = pickle.loads(pickle.dumps(first))
    assert decide("hard", copy, seed=5, budget_s=60) == decide("hard", first, seed=5,
                                                               budget_s=60)


@pytest.mark.slow
def test_hard_is_deterministic_for_a_seed(monkeypatch: pytest.MonkeyPatch) -> None:
    # Every decision twice, over a whole deal and into the next: the seed alone must decide
    # the samples and so the card.  Three samples a card make each search cheap; the budget
    # never cuts them, so nothing depends on time.
    monkeypatch.setattr(hard, "WORLDS", 3)
    match = Match(Options.make("classic"), seed=11)
    seen = 0
    while seen < 40 and not match.is_over:
        seat = match.current_player()
        assert seat is not None
        obs = match.observation(seat)
        action = decide("hard", obs, seed=seen, budget_s=60)
        assert action == decide("hard", obs, seed=seen, budget_s=60)
        match.apply_action(action)
        seen += 1
    assert seen == 40


def test_hard_looks_ahead_when_no_whole_deal_is_solved_in_time(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The exact search times out on every sample (a slow machine on the first trick):
    # the card must still come from sampled deals, searched a few tricks ahead.
    horizons: list[int] = []

    class Slow(Solver):
        def move_values(self, *args: Any, **kwargs: Any) -> dict[int, int]:
            horizons.append(self.horizon)
            if self.horizon == 8:
                raise SearchTimeout
            return super().move_values(*args, **kwargs)

    monkeypatch.setattr(hard, "NATIVE", True)
    monkeypatch.setattr(hard, "Solver", Slow)
    deck = list(range(32))
    random.Random(3).shuffle(deck)
    obs = first_card_observation(deck)
    monkeypatch.setattr(hard, "FIRST_TRICK_HORIZON", 0)  # whole deals from the first trick
    action = decide("hard", obs, seed=5, budget_s=60)
    assert action in obs.legal_actions
    assert horizons[0] == 8  # one sample tried whole, then only look-ahead ones
    assert len(horizons) > 1 and set(horizons[1:]) == {hard.HORIZON}
    # As it plays: in a suit contract the first trick is searched FIRST_TRICK_HORIZON
    # tricks ahead from the start, on many deals; in no trumps and all trumps, whole.
    monkeypatch.undo()
    monkeypatch.setattr(hard, "Solver", Slow)
    assert obs.contract is not None and obs.contract < NO_TRUMPS
    horizons.clear()
    assert decide("hard", obs, seed=5, budget_s=60) in obs.legal_actions
    assert set(horizons) == {hard.FIRST_TRICK_HORIZON} and len(horizons) == hard.WORLDS


def test_unknown_level_is_refused() -> None:
    try:
        make_bot("grandmaster")
    except ValueError as error:
        assert "grandmaster" in str(error)
    else:
        raise AssertionError("make_bot accepted an unknown level")


def test_hard_plays_alike_cards_at_once_as_its_search_would(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """When every legal card is alike (one suit, the same points, no card in play between
    them) hard answers without a search, with the card its search would have chosen (a
    tie over every sample, broken toward normal's card)."""
    monkeypatch.setattr(hard, "WORLDS", 3)
    searched: list[int] = []

    class Counting(Solver):
        def move_values(self, *args: Any, **kwargs: Any) -> dict[int, int]:
            searched.append(1)
            return super().move_values(*args, **kwargs)

    monkeypatch.setattr(hard, "Solver", Counting)
    alike = 0
    for seed in range(40):
        match = Match(Options.make("classic"), seed=seed)
        while alike < 3 and match.deal is not None and not match.deal.is_over:
            seat = match.current_player()
            assert seat is not None
            obs = match.observation(seat)
            cards = [a for a in obs.legal_actions if a < 32]
            if len(cards) > 1 and len(cards) == len(obs.legal_actions):
                bot = hard.HardBot(seed, budget_s=60)
                view = view_of(obs)
                if hard._one_choice(view, obs.options.points[view.contract]):
                    alike += 1
                    searched.clear()
                    card = bot.choose(obs)
                    assert not searched
                    monkeypatch.setattr(hard, "_one_choice", lambda *_: False)
                    assert hard.HardBot(seed, budget_s=60).choose(obs) == card
                    assert searched  # this time the search ran
                    monkeypatch.undo()
                    monkeypatch.setattr(hard, "WORLDS", 3)
                    monkeypatch.setattr(hard, "Solver", Counting)
            match.apply_action(make_bot("normal", seat).choose(obs), seat)
        if alike == 3:
            break
    assert alike == 3
