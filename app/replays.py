"""A match's finished deals as frames a viewer can step through (``/api/matches/{id}/replay``).

The browser shows every hand, trick and score of a past deal; the engine, replaying the
stored log, works them out here so that no client repeats the dealing, trick or
declaration rules.  The input is the match replayed from its public deals (finished
deals only, and not those a deal in progress is cut from: docs/storage.md), so nothing
unplayed can leak through this module.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pydantic import BaseModel, Field

from engine import Deal, Match, card_name
from engine.actions import BELOT, action_name, is_belot, is_call
from engine.cards import card_list
from engine.deal import trick_state
from engine.declarations import COMBOS
from engine.scoring import DealResult, MatchProgress, after_deal

from .contracts import result_fields
from .db.schemas import SeatOut
from .matchlog import Seat


class CallOut(BaseModel):
    seat: int
    call: str = Field(description="C D H S NT AT pass double redouble (classic: taking "
                                  "the turned card is a bid of its suit).")


class TrickOut(BaseModel):
    leader: int
    cards: list[str] = Field(description="In play order: card i is seat (leader + i) % 4's.")
    winner: int
    points: int = Field(description="Card points of the trick, without the last-trick 10.")


class AnnouncementOut(BaseModel):
    seat: int
    kind: str = Field(description="tierce, quarte, quint or carre-X (RECORD.md).")
    value: int
    cards: list[str]
    scored: bool = Field(description="Whether it counted after comparing the teams.")


class BelotOut(BaseModel):
    seat: int
    card: str = Field(description="The first of the K and Q, played with the belot.")


class ResultOut(BaseModel):
    """RECORD.md's per-deal replay object."""

    outcome: str
    contract: str | None
    bidder: int | None
    multiplier: int | None
    card_points: tuple[int, int]
    declarations: tuple[int, int]
    belot: tuple[int, int]
    valat: int | None
    score: tuple[int, int]
    hanging: int
    value: int | None = Field(default=None, description="Coinche: the bid's value (80..160, "
                              "capot 250, générale 500); `contract` names the bid (`120H`).")


class DealFrames(BaseModel):
    index: int
    dealer: int
    hands: list[list[str]] = Field(
        description="Each seat's cards once fully dealt (the first five after a redeal).")
    turned: str | None = Field(description="Classic: the card turned up for the auction.")
    auction: list[CallOut]
    tricks: list[TrickOut]
    announcements: list[AnnouncementOut]
    belots: list[BelotOut]
    result: ResultOut
    totals: tuple[int, int] = Field(description="The match score after this deal.")
    target: int = Field(description="The score that wins the match after this deal: "
                                    "a valat may raise it (RULES.md §7.8).")


class MatchReplay(BaseModel):
    id: str
    variant: str
    options: dict[str, Any] = Field(description="The flags that differ from the defaults.")
    target_score: int
    table_direction: str = Field(description="How seats 0..3 sit around the table "
                                             "(RULES.md §2), for drawing it.")
    seats: list[SeatOut]
    deals: list[DealFrames] = Field(description="The public record's deals (finished "
                                                "ones), in order.")
    totals: tuple[int, int]
    winner: int | None


def match_replay(match_id: str, seats: Sequence[Seat], match: Match) -> MatchReplay:
    """Frames of every deal of a match replayed from its public log (finished deals only)."""
    seen = [SeatOut(seat=i, kind=s.kind, name=s.name, level=s.level)
            for i, s in enumerate(seats)]
    deals: list[DealFrames] = []
    progress = MatchProgress((0, 0), match.options.target_score, None)
    for index, (deal, result) in enumerate(zip(match.deals, match.results, strict=True)):
        progress = after_deal(progress, result, match.options)
        deals.append(deal_frames(index, deal, result, progress))
    return MatchReplay(
        id=match_id, variant=match.options.variant,
        options=match.options.changed(), target_score=match.options.target_score,
        table_direction=match.options.table_direction, seats=seen, deals=deals,
        totals=match.totals, winner=match.winner,
    )


def deal_frames(index: int, deal: Deal, result: DealResult, after: MatchProgress) -> DealFrames:
    """One finished deal: hands, auction, tricks with their winners, announcements, and
    the match's score and target once it was scored (``after``)."""
    auction: list[CallOut] = []
    belots: list[BelotOut] = []
    for seat, action in deal.history:
        if is_call(action):
            auction.append(CallOut(seat=seat, call=action_name(action)))
        elif is_belot(action):
            belots.append(BelotOut(seat=seat, card=card_name(action - BELOT)))
    return DealFrames(
        index=index,
        dealer=deal.dealer,
        hands=[[card_name(c) for c in card_list(mask)] for mask in deal.dealt or deal.hands],
        turned=None if deal.turned is None else card_name(deal.turned),
        auction=auction,
        tricks=[trick_out(leader, cards, deal) for leader, cards in deal.tricks],
        announcements=_announcements(deal),
        belots=belots,
        result=ResultOut.model_validate(result_fields(result)),
        totals=after.totals,
        target=after.target,
    )


def trick_out(leader: int, cards: tuple[int, ...], deal: Deal) -> TrickOut:
    """A finished trick of ``deal`` with its winner and points, the cards valued as the
    deal's rules value them in its contract (Coinche's sans-atout and tout-atout have their
    own values): for the replay and the live event."""
    contract = deal.contract
    winner, _, points = trick_state(cards, leader, contract, deal.options.points[contract])
    return TrickOut(leader=leader, cards=[card_name(c) for c in cards], winner=winner,
                    points=points)


def _announcements(deal: Deal) -> list[AnnouncementOut]:
    rules = deal.declaration_rules
    if not deal.announcements or rules is None:
        return []
    _, scoring = deal.scoring_declarations()
    return [
        AnnouncementOut(
            seat=seat, kind=COMBOS[combo].kind(), value=COMBOS[combo].value(rules),
            cards=COMBOS[combo].text().split(" "), scored=combo in scoring[seat % 2],
        )
        for seat, combo in deal.announcements
    ]
