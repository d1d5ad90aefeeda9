"""Match records ``belote-record/1`` (RECORD.md): write one from a match, read and replay one.

Like PGN for chess, this is the one interchange format: the server's log, the history API,
the replay tool and the tests all speak it.
"""

from __future__ import annotations

from collections.abc import Mapping
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
from .deal import HISTORY_ENTRY, PLAY, Deal, Phase
from .declarations import COMBOS, parse_combo
from .errors import IllegalActionError
from .match import Match
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
    """Apply deal ``i``'s actions.  Runs of bare legal cards take the fast path
    (:func:`_play_cards`); every other action, and every card it leaves, is read and
    applied checked here: a bare card or bid looked up, the rest through
    :func:`read_action`.  The engine refuses any action once the deal is over, so that
    case is told apart only when an action fails."""
    apply = match.apply_action
    j, end = 0, len(actions)
    while True:
        j = _play_cards(deal, actions, j)
        if j == end:
            return
        raw = actions[j]
        try:
            action = _plain_action(raw)
            if action is None:
                for part in read_action(raw):
                    apply(part, raw["seat"])
            else:
                apply(action, raw["seat"])
        except (IllegalActionError, ValueError) as e:
            reason = "the deal is already over" if deal.is_over else str(e)
            raise RecordError(i, j, reason) from None
        j += 1


def _play_cards(deal: Deal, actions: list[Any], j: int) -> int:
    """Play ``actions[j:]`` for as long as each is a bare card, ``{"seat": s, "card": c}``,
    that the seat to move may play (its bit in the legal mask), as the checked path plays
    one after its checks: onto the history, then :meth:`Deal.push`.  It stops before the
    deal's last card, which the checked path plays and the match scores, and returns the
    index of the first action it leaves: the checked path reads that one and says why it
    is refused, if it is."""
    if deal.phase is not PLAY:
        return j
    played = 4 * len(deal.tricks) + len(deal.trick)
    stop = min(len(actions), j + 31 - played)
    cards, entry = _CARD_BY_NAME, HISTORY_ENTRY
    history, push, legal_mask = deal.history, deal.push, deal.legal_card_mask
    while j < stop:
        raw = actions[j]
        seat = deal.to_move
        # ``is``: the seat the int itself, never True or 1.0 (CPython keeps one 0..3 each);
        # an equal seat that is not the same object takes the checked path, as any doubt does
        if type(raw) is not dict or len(raw) != 2 or raw.get("seat") is not seat:
            return j
        name = raw.get("card")
        card = cards.get(name) if type(name) is str else None
        if card is None or not legal_mask() >> card & 1:
            return j
        history.append(entry[card][seat])
        push(card)
        j += 1
    return j


def _plain_action(raw: Any) -> Action | None:
    """The engine action of ``{"seat": s, "card": c}`` or ``{"seat": s, "bid": b}`` with
    valid values (nearly every record action), found with no more than dict lookups;
    None for anything else, which :func:`read_action` reads with its full checks."""
    if type(raw) is not dict or len(raw) != 2:
        return None
    seat = raw.get("seat")
    if type(seat) is not int or not 0 <= seat <= 3:
        return None
    name = raw.get("card")
    if name is not None:
        return _CARD_BY_NAME.get(name) if type(name) is str else None
    name = raw.get("bid")
    return _BID_BY_NAME.get(name) if type(name) is str else None


def _read_deck(i: int, text: Any) -> list[int]:
    if not isinstance(text, str):
        raise RecordError(i, 0, "deck must be a string of 32 cards")
    parts = text.split(" ")
    try:
        deck = [_CARD_BY_NAME[part] for part in parts]
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

