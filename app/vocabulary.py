"""The server's words, each defined once: what a table's status, a seat, an action's
author and a match's end can be.  They are strings on the wire and in the database
(``StrEnum``), so clients and old rows read them unchanged.  The engine defines its own
(``engine.Phase``, variants), the bots their levels (``ai.LEVELS``) and the protocol its
close codes (``app.protocol.CloseCode``)."""

from __future__ import annotations

from enum import StrEnum


class TableStatus(StrEnum):
    WAITING = "waiting"  # seats being taken, the match not started
    PLAYING = "playing"
    OVER = "over"  # won or forfeited: the result shows for a while
    CLOSED = "closed"  # gone: expired, abandoned, or its players left


OPEN = frozenset({TableStatus.WAITING, TableStatus.PLAYING})  # a table that still counts


class SeatKind(StrEnum):
    EMPTY = "empty"
    HUMAN = "human"
    BOT = "bot"


class Actor(StrEnum):
    """Who chose a logged action (the ``by`` of events and of the log's ``actor``)."""

    PLAYER = "player"  # the seat's human
    BOT = "bot"  # the seat's bot
    COVER = "cover"  # a bot playing for a human who is away
    TIMEOUT = "timeout"  # a bot playing for a human whose turn timed out


class BotPace(StrEnum):
    """How fast a table's bots play (issue #35): the table's creator chooses; each is a
    factor on the ``BOT_DELAY`` a bot waits before it moves (:data:`PACE_FACTORS`)."""

    SLOW = "slow"
    NORMAL = "normal"
    FAST = "fast"


PACE_FACTORS = {BotPace.SLOW: 2.0, BotPace.NORMAL: 1.0, BotPace.FAST: 0.35}


class EndReason(StrEnum):
    WON = "won"
    FORFEIT = "forfeit"  # a turn timed out at a table where that loses the match
    ABANDONED = "abandoned"  # the table closed with the match on
