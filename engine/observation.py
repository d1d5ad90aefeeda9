"""What one seat may see: its own hand, public cards and public history, nothing else;
and what anyone may see, seated or not: the public part alone.

Like boardgame.io's ``playerView``, this is the only way hidden state leaves the engine:
the bots decide from it and the server sends it.  An announced combination is public by
what is said aloud, its kind and value ("tierce", 20), which name the rank of a carré of
jacks (200) or nines (150); its cards are shown to the other seats, with whether it
scored, only once the deal is over (RULES §6.3).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from .actions import Action, action_name, is_call
from .cards import CARD_NAMES, SUITS, Card, Mask, card_names
from .deal import Deal, Phase, trick_state
from .declarations import COMBOS, DeclarationKind
from .options import Options
from .scoring import DealResult

if TYPE_CHECKING:
    from .match import Match


@dataclass(frozen=True, slots=True)
class Announcement:
    """An announced combination as one viewer may know it."""

    seat: int
    kind: DeclarationKind
    value: int
    rank: int | None  # a carré's, once the viewer can tell it: by its cards or its value
    cards: Mask | None  # None while hidden from the viewer
    scored: bool | None  # None until the deal is over


@dataclass(frozen=True, slots=True)
class PublicObservation:
    """A match at one moment as anyone may see it, seated or not.

    Built from public facts alone, so a spectator's view holds nothing private by
    construction, whatever fields a seat's view gains later.
    """

    options: Options
    deal_index: int
    dealer: int
    phase: Phase
    to_move: int | None
    hand_sizes: tuple[int, int, int, int]
    turned: Card | None  # the card turned up for the auction, where the variant turns one
    auction: tuple[tuple[int, Action], ...]
    contract: int | None
    declarer: int | None
    multiplier: int
    value: int | None  # the standing point bid's value (coinche: 80..160, 250, 500)
    out_of_turn: tuple[int, ...]  # seats that may coinche now though not to move (coinche)
    tricks: tuple[tuple[int, tuple[Card, ...]], ...]  # (leader, cards) of finished tricks
    leader: int  # of the current trick
    trick: tuple[Card, ...]
    announcements: tuple[Announcement, ...]
    previous: tuple[Announcement, ...]  # the last finished deal's, revealed
    previous_trick: tuple[int, tuple[Card, ...], int] | None  # its last: leader, cards, winner
    belots: tuple[tuple[int, int], ...]  # (seat, suit)
    totals: tuple[int, int]
    target: int
    pool: int
    results: tuple[DealResult, ...]
    winner: int | None

    def to_dict(self) -> dict[str, Any]:
        """The view in the record's notation, ready for JSON, in the shape of a seat's:
        no seat, no hand, no legal action."""
        return {
            "variant": self.options.variant,
            "seat": None,
            "deal": self.deal_index,
            "dealer": self.dealer,
            "phase": self.phase,
            "to_move": self.to_move,
            "hand": [],
            "hand_sizes": list(self.hand_sizes),
            "turned": None if self.turned is None else CARD_NAMES[self.turned],
            "auction": [{"seat": s, "bid": action_name(a)} for s, a in self.auction],
            "contract": (None if self.contract is None
                         else self.options.strain_names[self.contract]),
            "declarer": self.declarer,
            "multiplier": self.multiplier,
            "value": self.value,
            "out_of_turn": list(self.out_of_turn),
            "tricks": [
                {"leader": leader, "cards": [CARD_NAMES[c] for c in cards]}
                for leader, cards in self.tricks
            ],
            "trick": {"leader": self.leader, "cards": [CARD_NAMES[c] for c in self.trick]},
            "announcements": [_announcement(a) for a in self.announcements],
            "previous_announcements": [_announcement(a) for a in self.previous],
            "previous_trick": None if self.previous_trick is None else {
                "leader": self.previous_trick[0],
                "cards": [CARD_NAMES[c] for c in self.previous_trick[1]],
                "winner": self.previous_trick[2],
            },
            "belots": [{"seat": s, "suit": SUITS[suit]} for s, suit in self.belots],
            "legal_actions": [],
            "totals": list(self.totals),
            "target": self.target,
            "pool": self.pool,
            "results": [self.options.deal_report(r) for r in self.results],
            "winner": self.winner,
        }


@dataclass(frozen=True, slots=True)
class Observation(PublicObservation):
    """One seat's view of a match at one moment: the public one (its own announcements'
    cards shown), with its hand and, at its turn, its legal actions."""

    seat: int
    hand: Mask
    legal_actions: tuple[Action, ...]

    def to_dict(self) -> dict[str, Any]:
        """The view in the record's notation, ready for JSON."""
        return PublicObservation.to_dict(self) | {  # slots: no zero-argument super()
            "seat": self.seat,
            "hand": card_names(self.hand),
            "legal_actions": [action_name(a) for a in self.legal_actions],
        }


def _announcement(a: Announcement) -> dict[str, Any]:
    cards = None if a.cards is None else card_names(a.cards)
    return {"seat": a.seat, "kind": a.kind.value, "value": a.value, "cards": cards,
            "scored": a.scored}


def announcements(deal: Deal, viewer: int | None) -> tuple[Announcement, ...]:
    """A deal's announcements as ``viewer`` (None: anyone) may see them."""
    rules = deal.declaration_rules
    if rules is None:
        return ()
    scored: set[int] = set()
    if deal.is_over:
        _, ids = deal.scoring_declarations()
        scored = set(ids[0]) | set(ids[1])
    shown = [deal.is_over or seat == viewer for seat, _ in deal.announcements]
    return tuple(
        Announcement(
            seat,
            COMBOS[i].declaration_kind,
            COMBOS[i].value(rules),
            COMBOS[i].rank if show else COMBOS[i].public_rank,
            COMBOS[i].mask if show else None,
            (i in scored) if deal.is_over else None,
        )
        for (seat, i), show in zip(deal.announcements, shown, strict=True)
    )


def last_trick(deal: Deal) -> tuple[int, tuple[Card, ...], int] | None:
    """A finished deal's last trick, with who took it: every seat saw it fall, and the
    next deal's view is the only place left to tell it (``None`` for a thrown-in deal)."""
    if not deal.tricks:
        return None
    leader, cards = deal.tricks[-1]
    return leader, tuple(cards), trick_state(cards, leader, deal.contract)[0]


def observe_public(match: Match) -> PublicObservation:
    """What anyone may see now, seated or not."""
    return PublicObservation(**_public_facts(match, None))


def observe(match: Match, seat: int) -> Observation:
    """What ``seat`` may see now: the public facts, its own announcements' cards, its
    hand and, at its turn, its legal actions."""
    hand = _current(match).hands[seat]
    legal = tuple(match.legal_actions()) if match.current_player() == seat else ()
    return Observation(**_public_facts(match, seat), seat=seat, hand=hand, legal_actions=legal)


def _current(match: Match) -> Deal:
    if match.deal is None:
        raise ValueError("the match has no deal yet")
    return match.deal


def _public_facts(match: Match, viewer: int | None) -> dict[str, Any]:
    """The fields of :class:`PublicObservation`; ``viewer`` sees its own announcements."""
    deal = _current(match)
    finished = [d for d in match.deals[-2:] if d.is_over and d is not deal]
    has_contract = deal.contract >= 0
    return {
        "options": match.options,
        "deal_index": len(match.deals) - 1,
        "dealer": deal.dealer,
        "phase": deal.phase,
        "to_move": match.current_player(),
        "hand_sizes": tuple(h.bit_count() for h in deal.hands),
        "turned": deal.turned,
        "auction": tuple((s, a) for s, a in deal.history if is_call(a)),
        "contract": deal.contract if has_contract else None,
        "declarer": deal.declarer if has_contract else None,
        "multiplier": deal.multiplier,
        "value": deal.value or None if has_contract else None,
        "out_of_turn": deal.out_of_turn(),
        "tricks": tuple(deal.tricks),
        "leader": deal.leader,
        "trick": tuple(deal.trick),
        "announcements": announcements(deal, viewer),
        "previous": announcements(finished[-1], viewer) if finished else (),
        "previous_trick": last_trick(finished[-1]) if finished else None,
        "belots": tuple(deal.belots),
        "totals": match.totals,
        "target": match.progress.target,
        "pool": match.pool,
        "results": tuple(match.results),
        "winner": match.winner,
    }
