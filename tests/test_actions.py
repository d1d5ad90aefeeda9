"""Action numbers are a stored format (engine/actions.py, docs/storage.md): the numbers
the action log holds keep their meaning, and the ranges of each kind of action (Coinche's
point bids among them) lie apart from each other."""

from __future__ import annotations

import hashlib
from itertools import pairwise

import pytest

from engine import action_name, parse_action
from engine.actions import (
    ANNOUNCE,
    BELOT,
    BID,
    COINCHE,
    DOUBLE,
    END,
    PASS,
    POINT_BID,
    POINT_BID_END,
    RANGES,
    REDOUBLE,
    SURCOINCHE,
    is_announce,
    is_call,
    is_play,
    point_bid,
)

# sha256 of "number name" per line for every number that names an action, as they were
# when the numbering was first written down (issue #30); a change here is a change to
# every stored match.
NUMBERING_SHA256 = "66783078c170a93b416b88bf198d963849b6cf1898527e9b799b1f6369a99a1f"


def named_actions(end: int = 1024) -> list[str]:
    out = []
    for action in range(end):
        try:
            out.append(f"{action} {action_name(action)}")
        except ValueError:
            continue
    return out


def test_the_stored_numbers_keep_their_meaning() -> None:
    assert (BELOT, BID, PASS, DOUBLE, REDOUBLE, ANNOUNCE, END) == (32, 64, 70, 71, 72, 80, 170)
    pinned = {0: "7C", 31: "AS", 32: "7C+belot", 63: "AS+belot", 64: "C", 67: "S", 68: "NT",
              69: "AT", 70: "pass", 71: "double", 72: "redouble",
              80: "announce QC QD QH QS", 85: "announce JC JD JH JS",
              86: "announce 7C 8C 9C", 169: "announce 7S 8S 9S TS JS QS KS AS"}
    for action, name in pinned.items():
        assert action_name(action) == name
        assert parse_action(name) == action
    names = named_actions(POINT_BID)
    assert len(names) == END - ANNOUNCE + REDOUBLE + 1
    assert hashlib.sha256("\n".join(names).encode()).hexdigest() == NUMBERING_SHA256


def test_point_bids_and_coinche_have_their_record_names() -> None:
    """COINCHE.md §10.2's notation, one name a number, and nothing named past them."""
    pinned = {256: "80C", 259: "80S", 260: "80SA", 261: "80TA", 262: "90C", 307: "160S",
              309: "160TA", 310: "capotC", 315: "capotTA", 316: "generaleC", 321: "generaleTA",
              322: "coinche", 323: "surcoinche"}
    for action, name in pinned.items():
        assert action_name(action) == name
        assert parse_action(name) == action
    coinche = named_actions()[len(named_actions(POINT_BID)):]
    assert len(coinche) == SURCOINCHE + 1 - POINT_BID
    assert all(is_call(int(line.split()[0])) for line in coinche)


def test_the_ranges_are_in_order_and_apart() -> None:
    assert [r[:2] for r in RANGES] == [(0, 32), (32, 64), (64, 70), (70, 73), (80, 170),
                                       (256, 322), (322, 324)]
    for (_, end, _), (first, _, _) in pairwise(RANGES):
        assert end <= first
    assert all(first < end for first, end, _ in RANGES)
    assert POINT_BID > END  # room for point bids above every stored number


def test_point_bids_fill_their_reserved_range_once() -> None:
    bids = [point_bid(level, strain) for level in range(11) for strain in range(6)]
    assert bids == list(range(POINT_BID, POINT_BID_END))
    assert point_bid(0, 0) == 256 and point_bid(10, 5) == 321
    assert (COINCHE, SURCOINCHE) == (322, 323)
    for bad in ((11, 0), (0, 6), (-1, 0)):
        with pytest.raises(ValueError):
            point_bid(*bad)


@pytest.mark.parametrize("action", [73, 79, 170, 255, SURCOINCHE + 1, 1023])
def test_an_unassigned_number_is_no_action(action: int) -> None:
    """Nothing reads a number outside the ranges as a card, call or announcement."""
    with pytest.raises(ValueError):
        action_name(action)
    assert not (is_play(action) or is_call(action) or is_announce(action))
