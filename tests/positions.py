"""Hand-made deal positions for the bot tests: the deck that deals given hands, and the
observation of a seat after a given auction and plays."""

from __future__ import annotations

from engine.actions import BID, PASS, parse_action
from engine.cards import parse_card
from engine.match import Match
from engine.observation import Observation
from engine.options import Options


def cards(text: str) -> list[int]:
    return [parse_card(t) for t in text.split()]


def deck_for(hands: list[str], dealer: int, taker: int | None = None) -> list[int]:
    """The deck that deals ``hands`` (seat order): 3 + 2 each, then (classic) the turned
    card, which must be ``hands[taker]``'s sixth, and the completion (RULES §3.2, §3.3)."""
    parts = [cards(h) for h in hands]
    order = [(dealer + 1 + i) % 4 for i in range(4)]
    deck = [c for s in order for c in parts[s][0:3]] + [c for s in order for c in parts[s][3:5]]
    if taker is None:
        return deck + [c for s in order for c in parts[s][5:8]]
    deck.append(parts[taker][5])
    return deck + [c for s in order for c in parts[s][6 if s == taker else 5:8]]


def played(hands: list[str], bidder: int, contract: int, plays: str,
           variant: str = "bulgarian") -> Match:
    """Dealer 3 (seat 0 leads), ``bidder`` names ``contract``, then ``plays`` in order:
    actions in the record's notation, an announcement's words joined by underscores
    (``announce_9C_9D_9H_9S``) since spaces part the plays."""
    match = Match(Options.make(variant), dealer=3, auto_deal=False)
    match.start_deal(deck_for(hands, 3, bidder if variant == "classic" else None))
    while match.deal is not None and match.deal.phase == "auction":
        to_move = match.current_player()
        call = BID + contract if to_move == bidder else PASS
        match.apply_action(call if call in match.legal_actions() else PASS)
    assert match.deal is not None and match.deal.contract == contract
    for action in plays.split():
        match.apply_action(parse_action(action.replace("_", " ")))
    return match


def position(hands: list[str], bidder: int, contract: int, plays: str, seat: int,
             variant: str = "bulgarian") -> Observation:
    """``seat``'s observation after :func:`played`."""
    return played(hands, bidder, contract, plays, variant).observation(seat)


# Seat 1 holds the four nines and one spade, so it follows seat 0's 7S lead with 9S.
NINES = ["AS TS 7S JH 8D AC 7C KH", "9C 9D 9H 9S TC 8C JD QD",
         "7H 8H QH AD 7D KC JC TD", "QC KD TH AH 8S JS QS KS"]


def carre_played(rank: str, contract: int) -> Match:
    """Seat 1 holds the four cards of ``rank`` (the nines of :data:`NINES` traded for
    them) and announces them as it follows seat 0's 7S lead with its ``rank`` of spades."""
    swap = {"9": rank, rank: "9"}
    hands = [" ".join(swap.get(c[0], c[0]) + c[1] for c in h.split()) for h in NINES]
    carre = "_".join(rank + suit for suit in "CDHS")
    return played(hands, 0, contract, f"7S announce_{carre} {rank}S")
