"""A match as its log holds it, and the one way back from a log to an engine match.

The table tells its storage everything it logs (the match's metadata, each deal as dealt,
each action at its place, each result, how the match ended), so no storage keeps a match
of its own.  Recovery, the replay API and the record export all rebuild the engine match
through :func:`replay`, the server's only replay loop.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel, ConfigDict
from pydantic.dataclasses import dataclass as checked_dataclass

from ai import Level
from engine import Match, Options, card_name, parse_card
from engine.actions import Action
from engine.cards import Card
from engine.deal import history_entry
from engine.match import collector_paused
from engine.record import RecordError

from .models import Forfeit
from .vocabulary import BotPace, EndReason, SeatKind


@checked_dataclass(frozen=True)
class Seat:
    """Who sits at a seat when the match starts: the record's seat, plus the human's
    player id (not in the record: it is what history finds the player's matches by)."""

    kind: SeatKind
    name: str
    player_id: str | None = None  # a human without one has no history
    level: Level | None = None  # for bots

    def __post_init__(self) -> None:
        if self.kind == SeatKind.EMPTY:
            raise ValueError("a match has no empty seat")
        if self.kind == SeatKind.BOT and self.player_id is not None:
            raise ValueError("a bot seat has no player id")

    def record_entry(self) -> dict[str, Any]:
        """The seat as RECORD.md's ``seats`` metadata shows it."""
        entry: dict[str, Any] = {"name": self.name, "kind": self.kind.value}
        if self.level is not None:
            entry["level"] = self.level
        return entry


class TableMeta(BaseModel):
    """The table's settings, so that a restart rebuilds the same table."""

    model_config = ConfigDict(frozen=True)
    name: str
    turn_seconds: float
    private: bool
    timeout_forfeits: bool
    spectator_chat: bool = True  # absent from rows older than the chat
    rated: bool = False  # the result changes ratings (app/db/ratings.py reads it)
    bot_pace: BotPace = BotPace.NORMAL  # absent from rows older than issue #35
    seated_only: bool = False  # no spectator (a duplicate round's table: docs/tournaments.md)


class Owner(BaseModel):
    model_config = ConfigDict(frozen=True)
    id: str
    name: str


class MatchMeta(BaseModel):
    """What the table server logs about a match beside its deals and actions: enough to
    rebuild its table (stored as JSON in the ``matches.meta`` column)."""

    model_config = ConfigDict(frozen=True)
    variant: str
    options: dict[str, Any] = {}  # the flags that differ from the variant's defaults
    seed: int  # deals every deck, so the log's decks are checked against it on replay
    seats: list[Seat]
    version: int  # the table's version after its last change that is not an action
    table: TableMeta
    owner: Owner
    left: list[int] = []  # seats whose human left for good during the match: bots now
    forfeit: Forfeit | None = None

    def match_options(self) -> Options:
        return Options.make(self.variant, **self.options)

    def stored(self) -> dict[str, Any]:
        """The JSON the database keeps (defaults left out, as earlier versions wrote it)."""
        return self.model_dump(mode="json", exclude_defaults=True)

    def left_seat(self, seat: int, version: int) -> MatchMeta:
        """This metadata after ``seat``'s human left at ``version``.  Idempotent."""
        left = self.left if seat in self.left else [*self.left, seat]
        return self.model_copy(update={"left": left, "version": version})


@dataclass(frozen=True, slots=True)
class MatchEnd:
    """How a match ended, as the table tells its storage."""

    reason: EndReason
    totals: tuple[int, int]
    winner: int | None  # a team; None when abandoned
    forfeit: Forfeit | None = None


@dataclass(frozen=True, slots=True)
class LoggedAction:
    """One accepted action; ``by`` says who chose it (the player, a bot, the timer) and
    ``version`` is the table's version after it.  Both are None in logs that were not a
    table's (imported records)."""

    seat: int
    action: Action
    by: str | None = None
    version: int | None = None


@dataclass(slots=True)
class DealLog:
    """One deal as logged: its dealer and deck fix every hand, then its actions in order."""

    dealer: int
    deck: list[Card]
    actions: list[LoggedAction] = field(default_factory=list)


def replay(options: Options, deals: Sequence[DealLog], *, seed: int | None = None) -> Match:
    """The match ``deals`` describe, every action checked (RecordError, located, if not).

    With the match's ``seed`` the match goes on as it was played: each logged deck must be
    the one the seed deals, and a deal the log does not hold yet (the server stopped
    between one deal's end and the next one's row) is dealt from the seed, as the table
    dealt it.  Without it (records, the replay API) the match holds the deals given only.
    """
    if seed is None:
        match = Match(options, dealer=deals[0].dealer if deals else 0, auto_deal=False)
    else:
        match = Match(options, seed=seed, auto_deal=False)
    with collector_paused():
        for i, deal in enumerate(deals):
            try:
                if deal.dealer != match.next_dealer:
                    raise ValueError(f"dealer must be {match.next_dealer}, not {deal.dealer}")
                if seed is not None and (dealt := match.next_deck()) != deal.deck:
                    raise ValueError(f"the seed deals {deck_text(dealt)}, "
                                     f"the log {deck_text(deal.deck)}")
                match.start_deal(deal.deck)
            except ValueError as e:  # IllegalActionError included
                raise RecordError(i, 0, str(e)) from None
            actions = [history_entry(entry.seat, entry.action) for entry in deal.actions]
            j = 0
            while (j := match.apply_actions(actions, j)) < len(actions):
                try:
                    match.apply_action(actions[j][1], actions[j][0])  # raises why it was refused
                except ValueError as e:
                    raise RecordError(i, j, str(e)) from None
                j += 1
    if seed is not None:
        match.auto_deal = True
        if (match.deal is None or match.deal.is_over) and not match.is_over:
            match.start_deal()
    return match


def last_version(actions: Iterable[Iterable[LoggedAction]]) -> int:
    """The table version the last logged action left (0 if none), from each deal's actions."""
    return max((entry.version or 0 for deal in actions for entry in deal), default=0)


def deck_text(deck: Sequence[Card]) -> str:
    return " ".join(card_name(c) for c in deck)


def parse_deck(text: str) -> list[Card]:
    return [parse_card(part) for part in text.split(" ")]
