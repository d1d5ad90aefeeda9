"""The problems' tables (issue #35, migration 0015): positions of analysed matches where
a decision lost at least a mistake's worth, and each player's attempts at them.  Apart
from :mod:`.models` to keep that module small; imported by the package
(app/db/__init__.py), so that ``Base.metadata`` (Alembic, the tests) holds them."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import Boolean, ForeignKey, Index, Integer, SmallInteger, String
from sqlalchemy.orm import Mapped, mapped_column

from .models import Base


class Problem(Base):
    """A position where an analysed decision lost at least a mistake's worth (issue #35):
    what the seat saw, its legal choices, the analysis's answer and each choice's value,
    kept when the match's analysis is done (app/problems.py)."""

    __tablename__ = "problems"

    id: Mapped[str] = mapped_column(String(16), primary_key=True)  # of (match, deal, step, kind)
    match_id: Mapped[str] = mapped_column(ForeignKey("matches.id", ondelete="CASCADE"))
    deal: Mapped[int] = mapped_column(SmallInteger)
    step: Mapped[int] = mapped_column(SmallInteger)
    kind: Mapped[str] = mapped_column(String(8))  # card or bid
    seat: Mapped[int] = mapped_column(SmallInteger)
    player_id: Mapped[str | None] = mapped_column(String(64))  # whose mistake; None: a bot's
    public: Mapped[bool] = mapped_column(Boolean)  # a bot's, in a match that is not private
    variant: Mapped[str] = mapped_column(String(16))
    position: Mapped[dict[str, Any]]  # the seat's view then (app.views.seat_view)
    answer: Mapped[dict[str, Any]]  # options, best, played, loss, choices, unit, good_below
    played_at: Mapped[datetime]  # the match's end: newest first

    __table_args__ = (
        Index("ix_problems_player", "player_id", "played_at", "id"),
        Index("ix_problems_public", "public", "played_at", "id"),
    )


class ProblemAttempt(Base):
    """A player's attempts at one problem: how many, and whether one was right."""

    __tablename__ = "problem_attempts"

    problem_id: Mapped[str] = mapped_column(
        ForeignKey("problems.id", ondelete="CASCADE"), primary_key=True
    )
    player_id: Mapped[str] = mapped_column(String(64), primary_key=True)
    attempts: Mapped[int] = mapped_column(Integer)
    solved: Mapped[bool] = mapped_column(Boolean)
    last_at: Mapped[datetime]
