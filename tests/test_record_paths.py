"""Record replay's two paths agree (engine/record.py, ``Match.apply_actions``).

A run of bare cards is played by ``Deal.play_cards``, through ``Deal.push`` once each
card's bit is found in the legal mask, the deal's last card included; every other action
and any card that check refuses go through the checked ``Match.apply_action``.  Random
matches of both variants with random flags replay to the same match both ways (the fast
path switched off for the second), a corrupted record is refused at the same place for the
same reason both ways, and the rules reference (tests/reference.py, the benchmark's
baseline) reports what the engine reports.
"""

from __future__ import annotations

import copy
import gc
import random
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any
from unittest import mock

import pytest
from hypothesis import Phase, given, settings
from hypothesis import strategies as st

from engine.cards import card_list
from engine.deal import Deal
from engine.declarations import COMBOS
from engine.errors import IllegalActionError
from engine.match import Match
from engine.options import Options
from engine.record import RecordError, replay, replay_report, write_record
from tests.reference import reference_report
from tests.strategies import any_options, example_record, examples, play_random_match, seeds

Doc = dict[str, Any]
CARDS = [r + s for s in "CDHS" for r in "789TJQKA"]
BIDS = ["C", "D", "H", "S", "NT", "AT", "pass", "double", "redouble"]
# A seed shrinks to another, unrelated match: these tests do not shrink (as test_properties).
NO_SHRINK = (Phase.explicit, Phase.reuse, Phase.generate)


@contextmanager
def checked_only() -> Iterator[None]:
    """Replay with the fast path off: every action through ``Match.apply_action``."""
    with mock.patch.object(Deal, "play_cards", lambda self, actions, start, stop: start):
        yield


def state(match: Match) -> Any:
    """Everything a replayed match shows, and what it would do next."""
    deals = [(d.dealer, d.deck, d.history, d.hands, d.dealt, d.trick, d.tricks, d.phase,
              d.to_move, d.leader, d.win_seat, d.win_card, d.belots, d.announcements,
              d.contract, d.declarer, d.multiplier, d.points, d.tricks_won)
             for d in match.deals]
    return (deals, [r.to_dict() for r in match.results], match.progress, match.pool,
            match.current_player(), match.legal_actions(),
            [match.observation(s).to_dict() for s in range(4)], replay_report(match))


def outcome(doc: Doc) -> Any:
    """The replayed match's state, or where and why the record is refused."""
    try:
        match = replay(copy.deepcopy(doc))
    except RecordError as e:
        return "refused", e.deal, e.action, e.reason
    return "replayed", state(match)


def both_ways(doc: Doc) -> Any:
    fast = outcome(doc)
    with checked_only():
        checked = outcome(doc)
    assert fast == checked
    return fast


# --------------------------------------------------------------------- corruptions

Corruption = Callable[[list[Any], int, random.Random], None]


def other_card(actions: list[Any], j: int, rng: random.Random) -> None:
    actions[j] = {"seat": actions[j]["seat"], "card": rng.choice(CARDS)}


def other_seat(actions: list[Any], j: int, rng: random.Random) -> None:
    actions[j]["seat"] = rng.choice([0, 1, 2, 3, True, False, 1.0, "1", None, -1, 4])


def other_bid(actions: list[Any], j: int, rng: random.Random) -> None:
    actions[j] = {"seat": actions[j]["seat"], "bid": rng.choice(BIDS)}


def odd_card_value(actions: list[Any], j: int, rng: random.Random) -> None:
    actions[j] = {"seat": actions[j]["seat"],
                  "card": rng.choice(["ah", "1S", "", 7, None, ["AH"], {"AH": 1}])}


def extra_key(actions: list[Any], j: int, rng: random.Random) -> None:
    key, value = rng.choice([
        ("belot", True), ("belot", False), ("announce", []), ("note", 1),
        ("announce", [rng.choice(COMBOS).text()]), ("bid", "pass"), ("card", "AS"),
    ])
    actions[j][key] = value


def missing_key(actions: list[Any], j: int, rng: random.Random) -> None:
    del actions[j][rng.choice(list(actions[j]))]


def not_an_object(actions: list[Any], j: int, rng: random.Random) -> None:
    actions[j] = rng.choice([None, "AH", ["seat", 0], 3])


def dropped(actions: list[Any], j: int, rng: random.Random) -> None:
    del actions[j]


def doubled(actions: list[Any], j: int, rng: random.Random) -> None:
    actions.insert(j, copy.deepcopy(actions[j]))


def swapped(actions: list[Any], j: int, rng: random.Random) -> None:
    k = rng.randrange(len(actions))
    actions[j], actions[k] = actions[k], actions[j]


def cut_short(actions: list[Any], j: int, rng: random.Random) -> None:
    del actions[j:]


def played_after_the_end(actions: list[Any], j: int, rng: random.Random) -> None:
    actions.append({"seat": rng.randrange(4), "card": rng.choice(CARDS)})


CORRUPTIONS: list[Corruption] = [
    other_card, other_card, other_card, other_seat, other_bid, odd_card_value, extra_key,
    missing_key, not_an_object, dropped, doubled, swapped, cut_short, played_after_the_end,
]


def corrupted(doc: Doc, rng: random.Random) -> Doc:
    """``doc`` with one action of one deal spoiled (most often a card: the fast path's)."""
    bad = copy.deepcopy(doc)
    deals = [d for d in bad["deals"] if d["actions"]]
    if not deals:
        return bad
    actions = rng.choice(deals)["actions"]
    rng.choice(CORRUPTIONS)(actions, rng.randrange(len(actions)), rng)
    return bad


# --------------------------------------------------------------------- the tests


@settings(max_examples=examples(40), deadline=None, phases=NO_SHRINK)
@given(options=any_options(), seed=seeds, stop=st.one_of(st.none(), st.integers(0, 300)))
def test_random_matches_replay_the_same_both_ways(
    options: Options, seed: int, stop: int | None
) -> None:
    """Whole and cut-short random matches: the same match through either path, and the
    reference reports it the same; each record corrupted at random, ten times over, is
    refused (or, where the change is still legal, replayed) the same way by both."""
    doc = write_record(play_random_match(options, seed, max_actions=stop))
    kind, replayed = both_ways(doc)
    assert kind == "replayed"
    assert reference_report(doc) == replayed[-1]
    rng = random.Random(seed)
    refused = sum(both_ways(corrupted(doc, rng))[0] == "refused" for _ in range(10))
    assert refused > 0 or not any(d["actions"] for d in doc["deals"])


SEAT_THREE_LEADS = 9  # RECORD.md's example: seat 3 leads the second trick, its 10th action


@pytest.mark.parametrize(("seat", "reason"), [
    (True, "seat must be 0, 1, 2 or 3, not True"),
    (3.0, "seat must be 0, 1, 2 or 3, not 3.0"),
    ("3", "seat must be 0, 1, 2 or 3, not '3'"),
    (0, "seat 0 may not act: it is seat 3's turn"),
])
def test_a_seat_equal_but_not_an_int_is_refused_both_ways(seat: Any, reason: str) -> None:
    """The fast path knows the seat to move by identity: ``True`` and ``3.0`` are equal to
    an int but are no seat, and are refused where the checked path refuses them."""
    doc = example_record()
    doc["deals"][0]["actions"][SEAT_THREE_LEADS]["seat"] = seat
    assert both_ways(doc) == ("refused", 0, SEAT_THREE_LEADS, reason)


def test_an_illegal_last_card_is_refused_both_ways() -> None:
    """The deal's last card, which ends and scores the deal, is checked as any other."""
    doc = example_record()
    last = doc["deals"][0]["actions"][-1]
    last["card"] = "AS"  # played by seat 2 in the tenth trick's place: not seat 3's
    assert both_ways(doc) == ("refused", 0, 36, "seat 3 does not hold AS")


# --------------------------------------------------------------------- the engine's loop


def apply_in_turn(match: Match, actions: list[tuple[int, int]]) -> int:
    """``actions`` through ``apply_action`` one at a time: the index of the first refused."""
    for j, (seat, action) in enumerate(actions):
        try:
            match.apply_action(action, seat)
        except IllegalActionError:
            return j
    return len(actions)


@settings(max_examples=examples(30), deadline=None, phases=NO_SHRINK)
@given(options=any_options(), seed=seeds, stop=st.one_of(st.none(), st.integers(0, 300)))
def test_apply_actions_is_apply_action_in_turn(
    options: Options, seed: int, stop: int | None
) -> None:
    """``Match.apply_actions``, the loop of every replay (records, and ``app.matchlog``'s
    for recovery and the replay API), leaves the match that ``apply_action`` leaves action
    by action, and stops where it refuses one: each deal's history as logged, then with
    one action replaced by another at random (most often a card its seat was dealt, else
    any seat and number, bools, floats and out-of-range ones among them), ten times
    over."""
    played = play_random_match(options, seed, max_actions=stop)
    rng = random.Random(seed)
    for attempt in range(11):
        fast = Match(options, dealer=played.first_dealer, auto_deal=False)
        slow = Match(options, dealer=played.first_dealer, auto_deal=False)
        for deal in played.deals:
            actions: list[tuple[Any, Any]] = list(deal.history)
            if attempt and actions:
                j = rng.randrange(len(actions))
                seat = actions[j][0]
                held = card_list(deal.dealt[seat]) if deal.dealt else [0]
                actions[j] = rng.choice([
                    (seat, rng.choice(held)),  # most often held, and not always legal
                    (seat, rng.choice(held)),
                    (rng.choice([0, 1, 2, 3, True, 4, -1]),
                     rng.choice([rng.randrange(-1, 180), True, False, 1.0])),
                ])
            fast.start_deal(deal.deck)
            slow.start_deal(deal.deck)
            refused = fast.apply_actions(actions)
            assert refused == apply_in_turn(slow, actions)
            assert state(fast) == state(slow)
            if refused < len(actions) or not fast.deal or not fast.deal.is_over:
                break


def test_the_collector_is_paused_for_a_replay_and_put_back_as_it_was() -> None:
    """Replays run with the garbage collector off (they keep everything they build), and
    leave it as they found it, even when the record is refused."""
    seen: list[bool] = []

    def apply_nothing(*_: Any) -> int:
        seen.append(gc.isenabled())
        return 0

    doc = example_record()
    with mock.patch.object(Match, "apply_actions", side_effect=apply_nothing):
        for was_on in (True, False):
            gc.enable() if was_on else gc.disable()
            try:
                with pytest.raises(RecordError):
                    replay(doc)  # the mock applies nothing, so the deal stops before its end
            finally:
                assert gc.isenabled() == was_on
                gc.enable()
    assert seen and not any(seen)
