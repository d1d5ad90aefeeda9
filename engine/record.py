"""Match records ``belote-record/1`` (RECORD.md): write one from a match, read and replay one.

Like PGN for chess, this is the one interchange format: the server's log, the history API,
the replay tool and the tests all speak it.
"""

from __future__ import annotations

from collections.abc import Mapping
from operator import add
from typing import Any

from .actions import (
    ANNOUNCE,
    BELOT,
    BID,
    SURCOINCHE,
    Action,
    action_name,
    call_order,
    is_announce,
    is_call,
    is_play,
)
from .cards import RANKS, SUITS, card_name, parse_card
from .deal import HISTORY_ENTRY, Deal, Phase
from .declarations import COMBOS, parse_combo
from .errors import IllegalActionError
from .match import Match, collector_paused
from .options import Options
from .scoring import UNFINISHED, DealResult
from .variants import find_variant

FORMAT = "belote-record/1"
_DEAL_KEYS = {"dealer", "deck", "actions"}
_CARD_KEYS = {"seat", "card", "announce", "belot"}
_BID_KEYS = {"seat", "bid"}
# Names looked up, not parsed: nearly every record action is a bare card or bid.
_CARD_BY_NAME = {r + s: suit * 8 + rank for suit, s in enumerate(SUITS)
                 for rank, r in enumerate(RANKS)}
_BID_BY_NAME = {action_name(a): a for a in range(BID, SURCOINCHE + 1) if is_call(a)}
# ... and straight to the history's ``(seat, action)``, by seat.
_CARD_ENTRIES = {name: HISTORY_ENTRY[card] for name, card in _CARD_BY_NAME.items()}
_BID_ENTRIES = {name: HISTORY_ENTRY[action] for name, action in _BID_BY_NAME.items()}
_UNREAD = (-1, -1)  # in place of an action read with its full checks
# A deck's text, "7C 8C ...": 32 names and 31 spaces; each character of a rank or suit
# column as its number (a suit's times 8), any other as 255.
_DECK_TEXT, _SPACES = 32 * 3 - 1, " " * 31
_RANK_CODES = bytes(RANKS.find(chr(b)) & 255 for b in range(256))
_SUIT_CODES = bytes(SUITS.find(chr(b)) * 8 & 255 if chr(b) in SUITS else 255
                    for b in range(256))


class RecordError(ValueError):
    """A record that is malformed or breaks a rule, located at ``deal``, ``action``."""

    def __init__(self, deal: int, action: int, reason: str) -> None:
        super().__init__(f"deal {deal}, action {action}: {reason}")
        self.deal, self.action, self.reason = deal, action, reason


# --------------------------------------------------------------------- writing


def deal_record(deal: Deal) -> dict[str, Any]:
    """One deal in the record's notation; announcements ride on the card they precede."""
    actions: list[dict[str, Any]] = []
    pending: dict[int, list[str]] = {}
    for seat, action in deal.history:
        if is_announce(action):
            pending.setdefault(seat, []).append(COMBOS[action - ANNOUNCE].text())
        elif is_play(action):
            entry: dict[str, Any] = {"seat": seat, "card": card_name(action % BELOT)}
            if seat in pending:
                entry["announce"] = pending.pop(seat)
            if action >= BELOT:
                entry["belot"] = True
            actions.append(entry)
        else:
            actions.append({"seat": seat, "bid": action_name(action)})
    return {
        "dealer": deal.dealer,
        "deck": " ".join(card_name(c) for c in deal.deck),
        "actions": actions,
    }


def write_record(match: Match, **extra: Any) -> dict[str, Any]:
    """The record of ``match`` so far; ``extra`` adds top-level keys such as ``seats``.

    The format carries announcements on the card they go with, so announcements made
    by the seat to move before its card are not written yet; a log that must survive
    that moment keeps the engine's actions instead (as the server's does).
    """
    if reserved := {"format", "variant", "options", "deals"} & set(extra):
        raise ValueError(f"{sorted(reserved)[0]!r} is written by the match itself")
    record: dict[str, Any] = {"format": FORMAT, "variant": match.options.variant}
    if match.options.changed():
        record["options"] = match.options.changed()
    record.update(extra)
    record["deals"] = [deal_record(d) for d in match.deals]
    return record


# --------------------------------------------------------------------- reading


def read_options(doc: Mapping[str, Any]) -> Options:
    variant = find_variant(doc.get("variant")).variant
    flags = doc.get("options", {})
    if not isinstance(flags, dict):
        raise ValueError("options must be an object")
    return Options.make(variant, **flags)


def replay(doc: Any) -> Match:
    """Rebuild a match from its record, checking every action; RecordError on any fault."""
    if not isinstance(doc, dict):
        raise RecordError(0, 0, "a record is a JSON object")
    if doc.get("format") != FORMAT:
        raise RecordError(0, 0, f"format must be {FORMAT!r}")
    try:
        options = read_options(doc)
    except ValueError as e:
        raise RecordError(0, 0, str(e)) from None
    deals = doc.get("deals")
    if not isinstance(deals, list):
        raise RecordError(0, 0, "deals must be a list")
    first = deals[0].get("dealer") if deals and isinstance(deals[0], dict) else 0
    valid_first = type(first) is int and first in range(4)
    match = Match(options, dealer=first if valid_first else 0, auto_deal=False)
    with collector_paused():
        for i, entry in enumerate(deals):
            _replay_deal(match, i, entry, last=i == len(deals) - 1)
    return match


def _replay_deal(match: Match, i: int, entry: Any, last: bool) -> None:
    if not isinstance(entry, dict):
        raise RecordError(i, 0, "a deal is a JSON object")
    if unknown := set(entry) - _DEAL_KEYS:
        raise RecordError(i, 0, f"unknown key {sorted(unknown)[0]!r} in deal")
    if match.is_over:
        raise RecordError(i, 0, "the match was already won")
    dealer = entry.get("dealer")
    if type(dealer) is not int or dealer != match.next_dealer:
        expected = "0, 1, 2 or 3" if i == 0 else str(match.next_dealer)
        raise RecordError(i, 0, f"dealer must be {expected}, not {dealer!r}")
    deck = _read_deck(i, entry.get("deck"))
    try:
        deal = match.start_deal(deck)
    except ValueError as e:
        raise RecordError(i, 0, str(e)) from None
    actions = entry.get("actions")
    if not isinstance(actions, list):
        raise RecordError(i, 0, "actions must be a list")
    _replay_actions(match, deal, i, actions)
    if not deal.is_over and not last:
        raise RecordError(i, len(actions), "the deal stops before its end")


def _replay_actions(match: Match, deal: Deal, i: int, actions: list[Any]) -> None:
    """Apply deal ``i``'s actions: the bare cards and bids (nearly all of them) looked up
    into the engine's ``(seat, action)`` and applied by :meth:`Match.apply_actions`, the
    replays' one loop; every other action read with :func:`read_action`'s full checks and
    applied checked, and a refused one applied checked again to word the refusal.  The
    engine refuses any action once the deal is over, so that case is told apart only when
    an action fails."""
    entries, others = _engine_actions(actions)
    j = 0
    for stop in others:
        _apply(match, deal, i, entries, j, stop)
        raw = actions[stop]
        try:
            for part in read_action(raw):
                match.apply_action(part, raw["seat"])
        except (IllegalActionError, ValueError) as e:
            raise RecordError(i, stop, "the deal is already over" if deal.is_over
                              else str(e)) from None
        j = stop + 1
    _apply(match, deal, i, entries, j, len(actions))


def _apply(match: Match, deal: Deal, i: int, entries: list[tuple[int, Action]],
           j: int, stop: int) -> None:
    """Apply ``entries[j:stop]``, all looked up; RecordError at the first one refused."""
    while (j := match.apply_actions(entries, j, stop)) < stop:
        seat, action = entries[j]
        try:
            match.apply_action(action, seat)  # raises why it was refused
        except IllegalActionError as e:
            raise RecordError(i, j, "the deal is already over" if deal.is_over
                              else str(e)) from None
        j += 1


def _engine_actions(actions: list[Any]) -> tuple[list[tuple[int, Action]], list[int]]:
    """The engine's ``(seat, action)`` (the history's entry) of each ``{"seat": s, "card":
    c}`` or ``{"seat": s, "bid": b}`` with valid values, found with no more than dict and
    tuple lookups; ``_UNREAD`` for any other, which :func:`read_action` reads, and where
    those are."""
    entries: list[tuple[int, Action]] = []
    others: list[int] = []
    add = entries.append
    cards, bids = _CARD_ENTRIES, _BID_ENTRIES
    for raw in actions:
        try:
            if type(raw) is dict and len(raw) == 2:
                seat = raw["seat"]
                entry = (cards.get(raw.get("card", "")) or bids[raw["bid"]])[seat]
                # ``is``: the seat the int itself, never True or 1.0 (CPython keeps one
                # 0..3 each), nor -1 (which indexes seat 3)
                if entry[0] is seat:
                    add(entry)
                    continue
        except (KeyError, IndexError, TypeError):  # a key missing, a value no seat or name
            pass
        others.append(len(entries))
        add(_UNREAD)
    return entries, others


def _read_deck(i: int, text: Any) -> list[int]:
    if not isinstance(text, str):
        raise RecordError(i, 0, "deck must be a string of 32 cards")
    if len(text) == _DECK_TEXT and text[2::3] == _SPACES and text.isascii():
        # the ranks and suits a column each, translated to numbers at once: 255 and up
        # for a character that is neither
        data = text.encode()
        deck = list(map(add, data[::3].translate(_RANK_CODES), data[1::3].translate(_SUIT_CODES)))
        if len(set(deck)) == 32 and max(deck) < 32:
            return deck
    parts = text.split(" ")
    try:
        deck = list(map(_CARD_BY_NAME.__getitem__, parts))
    except KeyError:
        bad = next(part for part in parts if part not in _CARD_BY_NAME)
        raise RecordError(i, 0, f"deck: not a card: {bad!r}") from None
    if len(deck) != 32 or len(set(deck)) != 32:
        raise RecordError(i, 0, "deck must hold each of the 32 cards once")
    return deck


def read_action(raw: Any) -> list[Action]:
    """The engine actions one record action stands for, announcements then the card,
    every field checked (the error says which)."""
    if not isinstance(raw, dict):
        raise ValueError("an action is a JSON object")
    seat = raw.get("seat")
    if type(seat) is not int or seat not in range(4):
        raise ValueError(f"seat must be 0, 1, 2 or 3, not {seat!r}")
    if "bid" in raw:
        if unknown := set(raw) - _BID_KEYS:
            raise ValueError(f"unknown key {sorted(unknown)[0]!r} in a bid")
        bid = raw["bid"]
        if not isinstance(bid, str) or bid not in _BID_BY_NAME:
            raise ValueError(f"unknown bid {bid!r}")
        return [_BID_BY_NAME[bid]]
    if "card" not in raw:
        raise ValueError("an action needs a bid or a card")
    if unknown := set(raw) - _CARD_KEYS:
        raise ValueError(f"unknown key {sorted(unknown)[0]!r} in a card action")
    card = raw["card"]
    if not isinstance(card, str):
        raise ValueError(f"not a card: {card!r}")
    played = parse_card(card)
    announce = raw.get("announce", [])
    belot = raw.get("belot", False)
    if not isinstance(announce, list) or not all(isinstance(a, str) for a in announce):
        raise ValueError("announce must be a list of combinations")
    if type(belot) is not bool:
        raise ValueError("belot must be true or false")
    return [ANNOUNCE + parse_combo(a) for a in announce] + [played + BELOT * belot]


# --------------------------------------------------------------------- reports


def deal_results(match: Match) -> list[DealResult]:
    """One result per recorded deal, the last one ``unfinished`` if it is still on."""
    results = list(match.results)
    deal = match.deal
    if deal is not None and not deal.is_over:
        bid = deal.phase != Phase.AUCTION
        results.append(DealResult(
            UNFINISHED,
            contract=deal.contract if bid else None,
            bidder=deal.declarer if bid else None,
            multiplier=deal.multiplier if bid else None,
            value=deal.value or None if bid else None,
        ))
    return results


def replay_report(match: Match) -> dict[str, Any]:
    """RECORD.md's replay output; the variant writes each deal's object (with the
    totals after it, in coinche: COINCHE.md §10.3)."""
    deals, totals = [], (0, 0)
    for result in deal_results(match):
        totals = (totals[0] + result.score[0], totals[1] + result.score[1])
        deals.append(match.options.deal_report(result, totals))
    return {"deals": deals, "totals": list(match.totals), "winner": match.winner}


def legal_report(match: Match) -> dict[str, Any]:
    """Who acts next and what that seat may do, announcements left out (RECORD.md);
    in coinche, the seats that may coinche out of turn too (COINCHE.md §10.3)."""
    seat = match.current_player()
    if seat is None:
        return {"seat": None, "actions": []}
    actions = match.legal_actions()
    calls = sorted((a for a in actions if is_call(a)), key=call_order)
    listed = [{"bid": action_name(a)} for a in calls]
    listed += [{"card": card_name(a)} for a in sorted(a for a in actions if a < BELOT)]
    report: dict[str, Any] = {"seat": seat, "actions": listed}
    assert match.deal is not None
    if out_of_turn := match.deal.out_of_turn():
        report["coinche_out_of_turn"] = sorted(out_of_turn)
    return report

