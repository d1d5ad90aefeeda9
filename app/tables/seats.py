"""The four seats of a table: who holds each, and whether a bot plays for them now."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cache
from typing import Any

from ai import Level

from .. import matchlog, ratings
from ..auth import Player
from ..models import RatingView, SeatPublic
from ..vocabulary import SeatKind
from .clock import Timer


@dataclass(slots=True)
class Seat:
    kind: SeatKind = SeatKind.EMPTY
    player: Player | None = None
    level: Level | None = None  # a bot's
    connected: bool = False
    missed: int = 0  # turns in a row the timer played for this human
    autoplay: bool = False  # too many missed turns: a bot plays until the player resumes
    returning: bool = False  # away since a restart: turns wait on the timer, not a bot
    grace: Timer | None = None  # ends the absent player's grace
    account: bool = False  # the human is an account, not a guest
    rating: RatingView | None = None  # the account's, in the table's variant
    # The last :meth:`public` and what it was made of: every message a table sends shows
    # the four seats, which change a few times a match.
    _shown: tuple[tuple[Any, ...], SeatPublic] | None = field(
        default=None, repr=False, compare=False)

    @property
    def covered(self) -> bool:
        """A human seat whose turns a bot plays now: away, or asleep at the table."""
        away = not self.connected and not self.returning
        return self.kind == SeatKind.HUMAN and (self.autoplay or away)

    def holds(self, player: Player) -> bool:
        return self.player is not None and self.player.id == player.id

    def logged(self) -> matchlog.Seat:
        """A taken seat as the match log (and a parked table) keeps it."""
        if self.player is not None:
            return matchlog.Seat(SeatKind.HUMAN, self.player.name, self.player.id)
        return matchlog.Seat(SeatKind.BOT, "Bot", level=self.level)

    def public(self, variant: str) -> SeatPublic:
        """The seat as clients see it; the same object while nothing it shows changed
        (read only: it is shared by every message that shows it)."""
        key = (variant, self.kind, self.player, self.level, self.connected, self.autoplay,
               self.account, self.rating)
        shown = self._shown
        if shown is not None and shown[0] == key:
            return shown[1]
        public = SeatPublic.model_construct(
            kind=self.kind,
            name=None if self.player is None else self.player.name,
            player=None if self.player is None else self.player.id,
            level=self.level,
            connected=self.connected,
            autoplay=self.autoplay,
            account=self.account,
            rating=bot_view(variant, self.level) if self.kind == SeatKind.BOT and self.level
            else self.rating,
        )
        self._shown = (key, public)
        return public


@cache
def bot_view(variant: str, level: str) -> RatingView:
    """A bot level's fixed rating as seats show it (made once: it never moves)."""
    return RatingView.of(ratings.bot_rating(variant, level), None)
