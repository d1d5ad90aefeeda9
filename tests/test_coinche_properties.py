"""Property tests of Coinche (docs/COINCHE.md), as tests/test_properties.py has them for
the other variants: the flags and presets as the document lists them, card points that add
up to the deal's, every action offered applies and every other is refused (out of turn
too), and random matches under every preset replay from their records."""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine import Match, Options, replay, write_record
from engine.actions import COINCHE, SURCOINCHE, Action, is_call, parse_action
from engine.errors import IllegalActionError, WrongPhaseError
from engine.record import replay_report
from engine.variants import Coinche
from tests.strategies import seeds

# COINCHE.md §9.1: flag -> allowed values, the default first (written out, not read).
FLAGS: dict[str, tuple[Any, ...]] = {
    "table_direction": ("counterclockwise", "clockwise"),
    "reshuffle_each_deal": (True, False),
    "target_score": (1000, 701, 1001, 2000, 3000),
    "deal_packets": ("3-2-3", "3-3-2", "2-3-3"),
    "end_rule": ("reach", "exceed"),
    "both_over_target": ("higher_total", "contract_winner"),
    "allow_sa": (False, True),
    "allow_ta": (False, True),
    "ta_values": ("J13", "J14"),
    "ta_belote": ("each_suit", "none"),
    "generale": (False, True),
    "generale_value": (500, 600, 1000),
    "coinche_timing": ("in_turn", "any_time"),
    "overbid_after_coinche": (False, True),
    "undertrump_on_opponent_ruff": ("compulsory", "optional"),
    "partner_ruff_no_undertrump": (True, False),
    "belote_counts_for_contract": (True, False),
    "belote_on_failure": ("kept", "to_winner"),
    "announcements": (False, True),
    "announcements_count_for_contract": (True, False),
    "made_rule": ("reach_bid", "reach_bid_82", "beat_defence"),
    "scoring": ("made_plus_bid", "bid_only", "fixed_160"),
    "coinche_scope": ("all", "bid"),
    "failure_base": (160, 162),
    "surcoinche_multiplier": (4, 3),
    "capot_scoring": ("flat_500", "flat_250", "contract_250"),
    "unannounced_capot_bonus": (True, False),
    "rounding": ("nearest_5_up", "nearest_6_up", "none"),
}
# COINCHE.md §9.2.
PRESETS: dict[str, dict[str, Any]] = {
    "default": {},
    "ffb_contree": {"target_score": 2000, "undertrump_on_opponent_ruff": "optional",
                    "partner_ruff_no_undertrump": False, "belote_on_failure": "to_winner"},
    "ffb_coinche": {"target_score": 2000, "undertrump_on_opponent_ruff": "optional",
                    "partner_ruff_no_undertrump": False, "announcements": True,
                    "made_rule": "beat_defence"},
    "pagat": {"target_score": 2000, "made_rule": "reach_bid_82", "coinche_scope": "bid"},
    "bga_coinche": {"target_score": 2000, "end_rule": "exceed", "allow_sa": True,
                    "allow_ta": True, "ta_belote": "none", "coinche_timing": "any_time",
                    "failure_base": 162, "rounding": "none", "capot_scoring": "flat_250"},
    "colver": {"target_score": 2000, "undertrump_on_opponent_ruff": "optional",
               "partner_ruff_no_undertrump": False, "belote_on_failure": "to_winner",
               "coinche_scope": "bid", "failure_base": 162, "surcoinche_multiplier": 3,
               "capot_scoring": "contract_250", "rounding": "none"},
    "club_simple": {"scoring": "bid_only", "rounding": "none"},
}
EVERY_ACTION = [*range(64), *range(64, 73), *range(256, SURCOINCHE + 1)]


def test_flags_match_the_document() -> None:
    table = Coinche.flag_table()
    assert table.pop("preset") == ("default", tuple(PRESETS))
    assert set(table) == set(FLAGS)
    for name, (default, values) in table.items():
        assert default == FLAGS[name][0], name
        assert name == "target_score" or set(values) == set(FLAGS[name]), name


@pytest.mark.parametrize("preset", PRESETS)
def test_a_preset_sets_its_flags_and_a_given_flag_overrides_it(preset: str) -> None:
    options = Options.make("coinche", preset=preset)
    expected = {name: values[0] for name, values in FLAGS.items()} | PRESETS[preset]
    assert options.applicable() == expected | {"preset": preset}
    again = Options.make("coinche", **options.changed())
    assert again == options and again.applicable() == options.applicable()
    mine = Options.make("coinche", preset=preset, target_score=1000, rounding="nearest_6_up")
    assert (mine.target_score, mine.rounding) == (1000, "nearest_6_up")  # type: ignore[attr-defined]
    assert Options.make("coinche", **mine.changed()) == mine  # the record keeps the override
    with pytest.raises(ValueError, match="preset"):
        Options.make("coinche", preset="belote_club")
    with pytest.raises(ValueError, match="does not apply to bulgarian"):
        Options.make("bulgarian", preset=preset)


def coinche_options() -> st.SearchStrategy[Options]:
    """Coinche with a random preset and random flags over it."""
    flags = st.fixed_dictionaries({}, optional={name: st.sampled_from(values)
                                                for name, values in FLAGS.items()})
    return st.tuples(st.sampled_from(list(PRESETS)), flags).map(
        lambda pair: Options.make("coinche", preset=pair[0], **pair[1]))


def steps(match: Match, rng: random.Random) -> Iterator[tuple[int, Action]]:
    """Random play: in the auction a pass one time in two (so that bids stay low) and a
    coinche out of turn one time in ten where one may; yields before applying."""
    while not match.is_over:
        deal = match.deal
        assert deal is not None
        out = deal.out_of_turn()
        if out and rng.random() < 0.1:
            seat, action = rng.choice(out), COINCHE
        else:
            seat, legal = deal.to_move, deal.legal_actions()
            action = rng.choice(legal)
            if deal.phase == "auction" and rng.random() < 0.5:
                action = legal[legal.index(70)] if 70 in legal else action
        yield seat, action
        match.apply_action(action, seat)


def refused(match: Match, seat: int, action: Action) -> bool:
    deal = match.deal
    assert deal is not None
    trial = deal.copy()
    try:
        trial.apply(action, seat)
    except IllegalActionError:
        return True
    return False


@settings(max_examples=20, deadline=None)
@given(options=coinche_options(), seed=seeds)
def test_offered_actions_apply_and_others_are_refused(options: Options, seed: int) -> None:
    match = Match(options, seed=seed)
    rng = random.Random(seed)
    checks = 0
    for seat, _ in steps(match, rng):
        deal = match.deal
        assert deal is not None
        if rng.random() < 0.15 and checks < 8:
            checks += 1
            for who in range(4):
                offered = set(deal.legal_actions_of(who))
                assert (who in deal.actors()) == bool(offered)
                for action in EVERY_ACTION:
                    assert refused(match, who, action) != (action in offered), (who, action)
        assert seat in deal.actors()
        if len(match.deals) > 6:
            break


@settings(max_examples=30, deadline=None)
@given(options=coinche_options(), seed=seeds)
def test_card_points_add_up_to_the_deal(options: Options, seed: int) -> None:
    match = Match(options, seed=seed)
    for _ in steps(match, random.Random(seed)):
        pass
    rules: Any = options
    for deal, result in zip(match.deals, match.results, strict=True):
        if result.outcome == "redeal":
            assert deal.thrown_in and result.score == (0, 0)
            continue
        assert sum(deal.points) == 162
        bonus = rules.unannounced_capot_bonus or result.value in (250, 500)
        expected = 252 if result.valat is not None and bonus else 162
        assert sum(result.card_points) == expected
        assert all(s % 10 == 0 for s in result.score) or rules.rounding == "none"
    assert match.winner is not None


@pytest.mark.parametrize("preset", PRESETS)
@settings(max_examples=8, deadline=None)
@given(seed=seeds)
def test_random_matches_replay_under_every_preset(preset: str, seed: int) -> None:
    options = Options.make("coinche", preset=preset)
    match = Match(options, seed=seed)
    stop = random.Random(seed).randrange(400)
    for i, _ in enumerate(steps(match, random.Random(seed))):
        if i == stop:
            break
    doc = json.loads(json.dumps(write_record(match)))
    again = replay(doc)
    assert again.totals == match.totals and again.winner == match.winner
    assert replay_report(again) == replay_report(match)
    assert write_record(again) == doc
    calls = [a for d in again.deals for _, a in d.history if is_call(a)]
    assert calls == [a for d in match.deals for _, a in d.history if is_call(a)]


def test_a_call_during_the_play_is_refused_as_out_of_phase() -> None:
    """A point bid is no announcement (both lie above the cards' numbers)."""
    match = Match(Options.make("coinche"), seed=1, dealer=3)
    for seat, call in ((0, "80H"), (1, "pass"), (2, "pass"), (3, "pass")):
        match.apply_action(parse_action(call), seat)
    for call in ("90H", "coinche", "capotS", "pass"):
        with pytest.raises(WrongPhaseError, match="the cards are being played"):
            match.apply_action(parse_action(call), 0)
