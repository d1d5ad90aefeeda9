"""What one seat may see: its own hand, public cards and public history, nothing else.

Like boardgame.io's ``playerView``, this is the only way hidden state leaves the engine:
the bots decide from it and the server sends it.  An announced combination is public by
what is said aloud, its kind and value ("tierce", 20); its cards are shown to the other
seats, with whether it scored, only once the deal is over (RULES §6.3).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from .actions import ANNOUNCE, BID, Action, action_name
from .cards import CONTRACT_NAMES, SUITS, Card, Mask, card_name, cards_of
from .deal import Deal, trick_state
from .declarations import COMBOS
from .options import Options
from .scoring import DealResult

if TYPE_CHECKING:
    from .match import Match


@dataclass(frozen=True, slots=True)
class Announcement:
    seat: int
    kind: str  # tierce, quarte, quint or carre
    value: int
    cards: Mask | None  # None while hidden from the viewer
    scored: bool | None  # None until the deal is over


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
    previous: tuple[Announcement, ...]  # the last finished deal's, revealed
    previous_trick: tuple[int, tuple[Card, ...], int] | None  # its last: leader, cards, winner
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
            "announcements": [_announcement(a) for a in self.announcements],
            "previous_announcements": [_announcement(a) for a in self.previous],
            "previous_trick": None if self.previous_trick is None else {
                "leader": self.previous_trick[0],
                "cards": [card_name(c) for c in self.previous_trick[1]],
                "winner": self.previous_trick[2],
            },
            "belots": [{"seat": s, "suit": SUITS[suit]} for s, suit in self.belots],
            "legal_actions": [action_name(a) for a in self.legal_actions],
            "totals": list(self.totals),
            "target": self.target,
            "pool": self.pool,
            "results": [r.to_dict() for r in self.results],
            "winner": self.winner,
        }


def _announcement(a: Announcement) -> dict[str, Any]:
    cards = None if a.cards is None else [card_name(c) for c in cards_of(a.cards)]
    return {"seat": a.seat, "kind": a.kind, "value": a.value, "cards": cards, "scored": a.scored}


def announcements(deal: Deal, viewer: int) -> tuple[Announcement, ...]:
    """A deal's announcements as ``viewer`` may see them."""
    options = deal.options
    scored: set[int] = set()
    if deal.is_over:
        _, ids = deal.scoring_declarations()
        scored = set(ids[0]) | set(ids[1])
    return tuple(
        Announcement(
            seat,
            "carre" if COMBOS[i].is_carre else COMBOS[i].kind(),
            COMBOS[i].value(options),
            COMBOS[i].mask if deal.is_over or seat == viewer else None,
            (i in scored) if deal.is_over else None,
        )
        for seat, i in deal.announcements
    )


def last_trick(deal: Deal) -> tuple[int, tuple[Card, ...], int] | None:
    """A finished deal's last trick, with who took it: every seat saw it fall, and the
    next deal's view is the only place left to tell it (``None`` for a thrown-in deal)."""
    if not deal.tricks:
        return None
    leader, cards = deal.tricks[-1]
    return leader, tuple(cards), trick_state(cards, leader, deal.contract)[0]


def observe(match: Match, seat: int) -> Observation:
    deal = match.deal
    if deal is None:
        raise ValueError("the match has no deal yet")
    finished = [d for d in match.deals[-2:] if d.is_over and d is not deal]
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
        announcements=announcements(deal, seat),
        previous=announcements(finished[-1], seat) if finished else (),
        previous_trick=last_trick(finished[-1]) if finished else None,
        belots=tuple(deal.belots),
        legal_actions=tuple(match.legal_actions()) if match.current_player() == seat else (),
        totals=match.totals,
        target=match.progress.target,
        pool=match.pool,
        results=tuple(match.results),
        winner=match.winner,
    )

