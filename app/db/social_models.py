"""The community's tables (issue #32): friend requests, blocks, reports and each player's
reputation (migration 0011), the notices kept for offline players (0016).  Apart from
:mod:`.models` to keep that module small; imported by the package (app/db/__init__.py),
so that ``Base.metadata`` (Alembic, the tests) holds them."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import ForeignKey, Index, Integer, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from .models import Base


class FriendRequest(Base):
    """``asker`` asked ``asked`` to be friends; both rows, each way, make two friends."""

    __tablename__ = "friend_requests"

    asker: Mapped[str] = mapped_column(ForeignKey("players.id", ondelete="CASCADE"),
                                       primary_key=True)
    asked: Mapped[str] = mapped_column(ForeignKey("players.id", ondelete="CASCADE"),
                                       primary_key=True)
    at: Mapped[datetime]

    __table_args__ = (Index("ix_friend_requests_asked", "asked", "asker"),)


class Block(Base):
    """``blocker`` blocks ``blocked``: never seated together by the queue, no invitation
    nor friend request from the blocked, neither reads the other's chat."""

    __tablename__ = "blocks"

    blocker: Mapped[str] = mapped_column(ForeignKey("players.id", ondelete="CASCADE"),
                                         primary_key=True)
    blocked: Mapped[str] = mapped_column(ForeignKey("players.id", ondelete="CASCADE"),
                                         primary_key=True)
    at: Mapped[datetime]

    __table_args__ = (Index("ix_blocks_blocked", "blocked", "blocker"),)


class Report(Base):
    """A player's report of another, kept for an operator (``python -m app.admin reports``)."""

    __tablename__ = "reports"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    reporter: Mapped[str] = mapped_column(ForeignKey("players.id", ondelete="CASCADE"))
    player: Mapped[str] = mapped_column(ForeignKey("players.id", ondelete="CASCADE"))
    match: Mapped[str | None] = mapped_column(String(64))  # a table's or match's id, as given
    reason: Mapped[str] = mapped_column(String(16))
    text: Mapped[str] = mapped_column(Text)
    at: Mapped[datetime]

    __table_args__ = (Index("ix_reports_at", "at", "id"),)


class Reputation(Base):
    """A player's matches finished at their seat and left (or lost to the timer), counted
    as each match ends (app/db/reputation.py)."""

    __tablename__ = "reputations"

    player_id: Mapped[str] = mapped_column(ForeignKey("players.id", ondelete="CASCADE"),
                                           primary_key=True)
    finished: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    left: Mapped[int] = mapped_column(Integer, default=0, server_default="0")


class KeptNotice(Base):
    """A notice told while its player had no personal channel open, delivered when one
    opens (app/db/kept_notices.py): the newest few per player, for a week."""

    __tablename__ = "notices"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    player_id: Mapped[str] = mapped_column(ForeignKey("players.id", ondelete="CASCADE"))
    body: Mapped[str] = mapped_column(Text)  # the notice's JSON, as the channel sends it
    at: Mapped[datetime]

    __table_args__ = (Index("ix_notices_player_id", "player_id", "at"),)
