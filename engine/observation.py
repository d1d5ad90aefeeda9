"""What one seat may see: its own hand, public cards and public history, nothing else.

Like boardgame.io's ``playerView``, this is the only way hidden state leaves the engine:
the bots decide from it and the server sends it.  Announced combinations are public by
their kind ("tierce") while the deal is played; their cards are shown to the other seats
only once the deal is over.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from .actions import ANNOUNCE, BID, Action, action_name
from .cards import CONTRACT_NAMES, SUITS, Card, Mask, card_name, cards_of
from .declarations import COMBOS
from .options import Options
from .scoring import DealResult

if TYPE_CHECKING:
    from .match import Match


@dataclass(frozen=True, slots=True)
class Announcement:
    seat: int
    kind: str  # tierce, quarte, quint, carre-X
    cards: Mask | None  # None while hidden from the viewer


@dataclass(frozen=True, slots=True)
class Observation:
    """One seat's view of a match at one moment."""

    options: Options
    seat: int
    deal_index: int
    dealer: int
    phase: str  # auction, play, over
    to_move: int | None
    hand: Mask
    hand_sizes: tuple[int, int, int, int]
    turned: Card | None  # classic: the card turned up for the auction
    auction: tuple[tuple[int, Action], ...]
    contract: int | None
    declarer: int | None
    multiplier: int
    tricks: tuple[tuple[int, tuple[Card, ...]], ...]  # (leader, cards) of finished tricks
    leader: int  # of the current trick
    trick: tuple[Card, ...]
    announcements: tuple[Announcement, ...]
    belots: tuple[tuple[int, int], ...]  # (seat, suit)
    legal_actions: tuple[Action, ...]
    totals: tuple[int, int]
    target: int
    pool: int
    results: tuple[DealResult, ...]
    winner: int | None

    def to_dict(self) -> dict[str, Any]:
        """The view in the record's notation, ready for JSON."""
        return {
            "variant": self.options.variant,
            "seat": self.seat,
            "deal": self.deal_index,
            "dealer": self.dealer,
            "phase": self.phase,
            "to_move": self.to_move,
            "hand": [card_name(c) for c in cards_of(self.hand)],
            "hand_sizes": list(self.hand_sizes),
            "turned": None if self.turned is None else card_name(self.turned),
            "auction": [{"seat": s, "bid": action_name(a)} for s, a in self.auction],
            "contract": None if self.contract is None else CONTRACT_NAMES[self.contract],
            "declarer": self.declarer,
            "multiplier": self.multiplier,
            "tricks": [
                {"leader": leader, "cards": [card_name(c) for c in cards]}
                for leader, cards in self.tricks
            ],
            "trick": {"leader": self.leader, "cards": [card_name(c) for c in self.trick]},
            "announcements": [
                {
                    "seat": a.seat,
                    "kind": a.kind,
                    "cards": None if a.cards is None else [card_name(c) for c in cards_of(a.cards)],
                }
                for a in self.announcements
            ],
            "belots": [{"seat": s, "suit": SUITS[suit]} for s, suit in self.belots],
            "legal_actions": [action_name(a) for a in self.legal_actions],
            "totals": list(self.totals),
            "target": self.target,
            "pool": self.pool,
            "results": [r.to_dict() for r in self.results],
            "winner": self.winner,
        }


def observe(match: Match, seat: int) -> Observation:
    deal = match.deal
    if deal is None:
        raise ValueError("the match has no deal yet")
    over = deal.is_over
    announcements = tuple(
        Announcement(s, COMBOS[combo].kind(), COMBOS[combo].mask if over or s == seat else None)
        for s, combo in deal.announcements
    )
    has_contract = deal.contract >= 0
    return Observation(
        options=match.options,
        seat=seat,
        deal_index=len(match.deals) - 1,
        dealer=deal.dealer,
        phase=deal.phase,
        to_move=match.current_player(),
        hand=deal.hands[seat],
        hand_sizes=tuple(h.bit_count() for h in deal.hands),  # type: ignore[arg-type]
        turned=deal.turned,
        auction=tuple((s, a) for s, a in deal.history if BID <= a < ANNOUNCE),
        contract=deal.contract if has_contract else None,
        declarer=deal.declarer if has_contract else None,
        multiplier=deal.multiplier,
        tricks=tuple(deal.tricks),
        leader=deal.leader,
        trick=tuple(deal.trick),
        announcements=announcements,
        belots=tuple(deal.belots),
        legal_actions=tuple(match.legal_actions()) if match.current_player() == seat else (),
        totals=match.totals,
        target=match.progress.target,
        pool=match.pool,
        results=tuple(match.results),
        winner=match.winner,
    )

