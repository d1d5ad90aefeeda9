"""What moves a table's game on, one thing at a time: a bot thinking (after a human-like
pause, off the event loop) or a human's turn timer with its deadline."""

from __future__ import annotations

import logging
from functools import partial
from typing import Protocol

from engine import Action, Match
from engine.actions import PASS
from engine.deal import Phase
from engine.observation import Observation

from ..bots import Thinking
from ..vocabulary import PACE_FACTORS, Actor, SeatKind
from .clock import Timer
from .commands import BotMove, Command, TurnTimeout
from .config import Services, TableConfig
from .seats import Seat

log = logging.getLogger(__package__)


class Board(Protocol):
    """What turns read of their table, as it is when they are scheduled, and its queue."""

    id: str
    config: TableConfig
    services: Services
    seed: int
    version: int
    match: Match | None
    seats: list[Seat]

    @property
    def moving(self) -> bool: ...

    def post(self, command: Command) -> None: ...


class Turns:
    """The next step of one table.  :meth:`schedule` replaces whatever was pending."""

    def __init__(self, table: Board) -> None:
        self._table = table
        self.deadline: float | None = None  # wall-clock time the current human turn ends
        self._turn: tuple[int, int, float] | None = None  # version, seat, deadline
        self._timer: Timer | None = None  # a human's turn timer, or a bot's pause
        self._thinking: Thinking | None = None

    @property
    def turn(self) -> tuple[int, int, float] | None:
        """The human turn being timed: the table's version, the seat, its deadline."""
        return None if self.deadline is None else self._turn

    def carry(self, turn: tuple[int, int, float]) -> None:
        """Keep a turn's deadline from before (a table taken over by another node): the
        next :meth:`schedule` of that very turn times it to that deadline."""
        self._turn = turn

    @property
    def pending(self) -> bool:
        """Whether something will move the game on: a timer running, or a bot thinking."""
        return self._timer is not None or self._thinking is not None

    def schedule(self) -> None:
        """Start whatever moves the game on now: a bot, or the human's turn timer."""
        self.cancel()
        table = self._table
        match, settings = table.match, table.services.settings
        seat = None if match is None or not table.moving else match.current_player()
        if seat is None:
            return
        held = table.seats[seat]
        delay = settings.bot_delay * PACE_FACTORS[table.config.bot_pace]
        if held.kind == SeatKind.BOT:
            assert held.level is not None
            self.think(seat, held.level, Actor.BOT, delay)
        elif held.covered:
            self.think(seat, settings.cover_level, Actor.COVER, delay)
        else:
            # The same turn keeps its deadline, so reconnecting cannot buy more time.
            clock = table.services.clock
            if self._turn is None or self._turn[:2] != (table.version, seat):
                self._turn = (table.version, seat, clock.time() + table.config.turn_seconds)
            self.deadline = self._turn[2]
            self._timer = clock.call_later(max(0.0, self.deadline - clock.time()),
                                           partial(table.post, TurnTimeout(table.version, seat)))

    def time_out(self, seat: int, level: str) -> None:
        """The seat's timer ran out: in the auction it passes (no contract the player
        never chose binds their partner), in the play a bot of ``level`` chooses."""
        table = self._table
        assert table.match is not None and table.match.deal is not None
        if table.match.deal.phase == Phase.AUCTION and PASS in table.match.legal_actions():
            self.cancel()
            table.post(BotMove(table.version, seat, PASS, Actor.TIMEOUT))
        else:
            self.think(seat, level, Actor.TIMEOUT, 0)

    def think(self, seat: int, level: str, by: Actor, delay: float) -> None:
        """A bot of ``level`` plays the seat's turn, after ``delay`` seconds."""
        self.cancel()
        table = self._table
        assert table.match is not None
        observation = table.match.observation(seat)
        start = partial(self._start, table.version, seat, level, by, observation)
        if delay:
            self._timer = table.services.clock.call_later(delay, start)
        else:
            start()

    def cancel(self) -> None:
        self.deadline = None
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        if self._thinking is not None:
            self._thinking.cancel()
            self._thinking = None

    def _start(self, version: int, seat: int, level: str, by: Actor,
               observation: Observation) -> None:
        """Off the actor: let a bot decide; its move is posted to the table."""
        self._timer = None
        table = self._table
        seed = (table.seed + version) % (1 << 63)
        decided = partial(self._decided, version, seat, level, by, observation)
        try:
            self._thinking = table.services.bots.think(level, observation, seed, decided)
        except Exception as exc:  # the bots are stopped (shutdown): the table still moves
            decided(None, exc)

    def _decided(self, version: int, seat: int, level: str, by: Actor,
                 observation: Observation, action: Action | None,
                 error: BaseException | None) -> None:
        table = self._table
        if error is not None or action is None:  # a broken bot must not freeze the table
            log.error("table %s: %s bot failed for seat %d", table.id, level, seat,
                      exc_info=error)
            action = observation.legal_actions[0]
        table.post(BotMove(version, seat, action, by))
