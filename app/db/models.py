"""The tables, as SQLAlchemy declarative models; Alembic's migrations follow them exactly.

A match is kept as its log (deals with dealer and deck, then every engine action in order),
from which its ``belote-record/1`` record is rebuilt, and as the facts that history and
stats read without replaying anything: seats, per-deal results, final totals.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any, ClassVar

from sqlalchemy import (
    JSON,
    Boolean,
    DateTime,
    Dialect,
    Float,
    ForeignKey,
    ForeignKeyConstraint,
    Index,
    Integer,
    MetaData,
    SmallInteger,
    String,
    false,
    text,
)
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column
from sqlalchemy.types import TypeDecorator

# Stable constraint names, so that migrations can refer to them on both databases.
NAMING = {
    "ix": "ix_%(table_name)s_%(column_0_N_name)s",
    "uq": "uq_%(table_name)s_%(column_0_N_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_N_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}


class UTCDateTime(TypeDecorator[datetime]):
    """Aware UTC datetimes in and out: SQLite keeps no offset, so store every time as UTC."""

    impl = DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        if value.tzinfo is None:
            raise ValueError("naive datetime: give times with a timezone")
        return value.astimezone(UTC)

    def process_result_value(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is None or value.tzinfo is not None:
            return value
        return value.replace(tzinfo=UTC)


class Base(DeclarativeBase):
    metadata = MetaData(naming_convention=NAMING)
    type_annotation_map: ClassVar[dict[Any, Any]] = {
        datetime: UTCDateTime(), dict[str, Any]: JSON()
    }


class Player(Base):
    """A guest identity (``app.auth.Player``), kept from the first match it sat in."""

    __tablename__ = "players"

    id: Mapped[str] = mapped_column(String(64), primary_key=True)
    name: Mapped[str] = mapped_column(String(64))
    created_at: Mapped[datetime]


class Match(Base):
    """One match; ``finished_at`` is null while it is on (those are recovered at start)."""

    __tablename__ = "matches"

    id: Mapped[str] = mapped_column(String(64), primary_key=True)
    variant: Mapped[str] = mapped_column(String(16))
    options: Mapped[dict[str, Any]]  # the flags that differ from the variant's defaults
    meta: Mapped[dict[str, Any]]  # the table server's MatchMeta (app/matchlog.py) as JSON
    # meta.table.private as a column, so that lists can leave private matches out.
    private: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())
    started_at: Mapped[datetime]
    finished_at: Mapped[datetime | None]
    end_reason: Mapped[str | None] = mapped_column(String(16))  # won, forfeit, abandoned
    total0: Mapped[int] = mapped_column(Integer, default=0)
    total1: Mapped[int] = mapped_column(Integer, default=0)
    winner: Mapped[int | None] = mapped_column(SmallInteger)  # team 0 or 1
    # The fencing token of a cluster (docs/cluster.md): raised by each node that takes
    # the match over, checked by every write of its owner in the write's transaction.
    epoch: Mapped[int] = mapped_column(Integer, default=0, server_default="0")

    __table_args__ = (
        # The history list: newest first, cursor on (started_at, id).
        Index("ix_matches_started", "started_at", "id"),
        Index("ix_matches_variant_started", "variant", "started_at", "id"),
        # Recovery and the "unfinished" filter read only the few matches still on.
        Index(
            "ix_matches_unfinished",
            "started_at",
            "id",
            sqlite_where=text("finished_at IS NULL"),
            postgresql_where=text("finished_at IS NULL"),
        ),
    )


class MatchSeat(Base):
    """Who sat at a seat: a guest (``player_id``) or a bot with its level."""

    __tablename__ = "match_seats"

    match_id: Mapped[str] = mapped_column(
        ForeignKey("matches.id", ondelete="CASCADE"), primary_key=True
    )
    seat: Mapped[int] = mapped_column(SmallInteger, primary_key=True)
    player_id: Mapped[str | None] = mapped_column(ForeignKey("players.id"))
    name: Mapped[str] = mapped_column(String(64))
    kind: Mapped[str] = mapped_column(String(8))  # human or bot
    level: Mapped[str | None] = mapped_column(String(16))
    # The match's start, copied here so that a player's matches are one index range in
    # the list's order: a page reads its 20 rows, not every match the player ever sat in.
    started_at: Mapped[datetime]

    __table_args__ = (
        # A player's matches, newest first (cursor on (started_at, match_id)), and stats.
        Index("ix_match_seats_player", "player_id", "started_at", "match_id"),
    )


class Deal(Base):
    """A deal as dealt (dealer, deck) and, once over, its result (the DealResult fields)."""

    __tablename__ = "deals"

    match_id: Mapped[str] = mapped_column(
        ForeignKey("matches.id", ondelete="CASCADE"), primary_key=True
    )
    idx: Mapped[int] = mapped_column(SmallInteger, primary_key=True)
    dealer: Mapped[int] = mapped_column(SmallInteger)
    deck: Mapped[str] = mapped_column(String(96))  # record notation, top card first
    started_at: Mapped[datetime]
    finished_at: Mapped[datetime | None]
    outcome: Mapped[str | None] = mapped_column(String(12))
    contract: Mapped[int | None] = mapped_column(SmallInteger)  # engine contract int
    # Coinche: the bid's value (80..160, capot 250, générale 500); its strain is
    # ``contract``, its coinche level the ``multiplier``.  Null in the other variants.
    value: Mapped[int | None] = mapped_column(SmallInteger)
    bidder: Mapped[int | None] = mapped_column(SmallInteger)  # seat
    multiplier: Mapped[int | None] = mapped_column(SmallInteger)
    card_points0: Mapped[int | None] = mapped_column(SmallInteger)
    card_points1: Mapped[int | None] = mapped_column(SmallInteger)
    declarations0: Mapped[int | None] = mapped_column(SmallInteger)
    declarations1: Mapped[int | None] = mapped_column(SmallInteger)
    belot0: Mapped[int | None] = mapped_column(SmallInteger)
    belot1: Mapped[int | None] = mapped_column(SmallInteger)
    valat: Mapped[int | None] = mapped_column(SmallInteger)  # team
    score0: Mapped[int | None] = mapped_column(Integer)
    score1: Mapped[int | None] = mapped_column(Integer)
    hanging: Mapped[int | None] = mapped_column(Integer)

    __table_args__ = (
        # A match's contracts by bidder, counted in its players' tallies when it ends.
        Index("ix_deals_bidder", "match_id", "bidder", "outcome"),
    )


class Action(Base):
    """One engine action (bid, card, belot card or announcement), in order within its deal."""

    __tablename__ = "actions"

    match_id: Mapped[str] = mapped_column(String(64), primary_key=True)
    deal_idx: Mapped[int] = mapped_column(SmallInteger, primary_key=True)
    seq: Mapped[int] = mapped_column(SmallInteger, primary_key=True)
    seat: Mapped[int] = mapped_column(SmallInteger)
    action: Mapped[int] = mapped_column(SmallInteger)  # engine.actions int
    actor: Mapped[str | None] = mapped_column(String(8))  # player, bot or timer
    version: Mapped[int | None] = mapped_column(Integer)  # the table's state version
    at: Mapped[datetime]

    __table_args__ = (
        ForeignKeyConstraint(
            ["match_id", "deal_idx"], ["deals.match_id", "deals.idx"], ondelete="CASCADE"
        ),
    )


class Account(Base):
    """A player who chose a username and a password: its id stays the player's (a guest
    who signs up keeps every seat of its history)."""

    __tablename__ = "accounts"

    player_id: Mapped[str] = mapped_column(
        ForeignKey("players.id", ondelete="CASCADE"), primary_key=True
    )
    username: Mapped[str] = mapped_column(String(24))  # as typed; shown as the player's name
    username_key: Mapped[str] = mapped_column(String(24), unique=True)  # casefolded
    password_hash: Mapped[str] = mapped_column(String(255))  # Argon2id, PHC string
    created_at: Mapped[datetime]
    password_changed_at: Mapped[datetime]


class Session(Base):
    """A login: the SHA-256 of its token (never the token), and when it lapses unused."""

    __tablename__ = "sessions"

    token_hash: Mapped[str] = mapped_column(String(64), primary_key=True)
    player_id: Mapped[str] = mapped_column(
        ForeignKey("accounts.player_id", ondelete="CASCADE")
    )
    created_at: Mapped[datetime]
    expires_at: Mapped[datetime]  # slides forward while the session is used

    __table_args__ = (Index("ix_sessions_player", "player_id"),)


class PlayerRating(Base):
    """A player's current rating in one variant (app/ratings.py), kept beside the values
    the leaderboard orders and filters by, so that a page is one index range."""

    __tablename__ = "ratings"

    player_id: Mapped[str] = mapped_column(
        ForeignKey("players.id", ondelete="CASCADE"), primary_key=True
    )
    variant: Mapped[str] = mapped_column(String(16), primary_key=True)
    mu: Mapped[float] = mapped_column(Float)
    sigma: Mapped[float] = mapped_column(Float)
    value: Mapped[int] = mapped_column(Integer)  # ratings.display(): what boards rank by
    matches: Mapped[int] = mapped_column(Integer)  # rated matches in the variant
    wins: Mapped[int] = mapped_column(Integer)
    ranked: Mapped[bool] = mapped_column(Boolean)  # not provisional: on the leaderboard
    # For the operator's flag (app/integrity.py): wins at rated tables, whether or not
    # they moved the rating, and those of them the other team gave by leaving or timing out.
    table_wins: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    forfeit_wins: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    updated_at: Mapped[datetime]

    __table_args__ = (
        # The leaderboard: value then id, both descending, read backwards from a cursor;
        # a profile's rank counts the same range.
        Index("ix_ratings_board", "variant", "ranked", "value", "player_id"),
    )


class RatingChange(Base):
    """A player's rating after one rated match, and before it: the profile's history, the
    match's ``rating_changes``; its key makes a match rate each player once."""

    __tablename__ = "rating_history"

    match_id: Mapped[str] = mapped_column(
        ForeignKey("matches.id", ondelete="CASCADE"), primary_key=True
    )
    player_id: Mapped[str] = mapped_column(
        ForeignKey("players.id", ondelete="CASCADE"), primary_key=True
    )
    variant: Mapped[str] = mapped_column(String(16))
    seat: Mapped[int] = mapped_column(SmallInteger)
    mu_before: Mapped[float] = mapped_column(Float)
    sigma_before: Mapped[float] = mapped_column(Float)
    mu: Mapped[float] = mapped_column(Float)
    sigma: Mapped[float] = mapped_column(Float)
    value: Mapped[int] = mapped_column(Integer)
    matches: Mapped[int] = mapped_column(Integer)  # the player's rated matches after it
    at: Mapped[datetime]

    __table_args__ = (
        # A profile's history per variant, newest first from the index.
        Index("ix_rating_history_player", "player_id", "variant", "at", "match_id"),
    )


class PlayerTally(Base):
    """A player's finished matches in one variant, public or private ones, counted as
    each match ends (app/db/tallies.py): stats and profiles read a row, not the history."""

    __tablename__ = "player_tallies"

    player_id: Mapped[str] = mapped_column(
        ForeignKey("players.id", ondelete="CASCADE"), primary_key=True
    )
    variant: Mapped[str] = mapped_column(String(16), primary_key=True)
    private: Mapped[bool] = mapped_column(Boolean, primary_key=True)
    matches: Mapped[int] = mapped_column(Integer)
    wins: Mapped[int] = mapped_column(Integer)
    points_for: Mapped[int] = mapped_column(Integer)
    points_against: Mapped[int] = mapped_column(Integer)
    contracts_made: Mapped[int] = mapped_column(Integer)
    contracts_failed: Mapped[int] = mapped_column(Integer)
    contracts_hanging: Mapped[int] = mapped_column(Integer)


class BotTally(Base):
    """A player's finished matches with a bot of one level as partner (``with``) or
    opponent (``against``), and those won; a match counts once per level and side."""

    __tablename__ = "player_bot_tallies"

    player_id: Mapped[str] = mapped_column(
        ForeignKey("players.id", ondelete="CASCADE"), primary_key=True
    )
    variant: Mapped[str] = mapped_column(String(16), primary_key=True)
    private: Mapped[bool] = mapped_column(Boolean, primary_key=True)
    level: Mapped[str] = mapped_column(String(16), primary_key=True)
    side: Mapped[str] = mapped_column(String(8), primary_key=True)
    played: Mapped[int] = mapped_column(Integer)
    won: Mapped[int] = mapped_column(Integer)


class Analysis(Base):
    """A finished match's review (issue #17, docs/analysis.md): asked once, computed once by
    whichever worker takes it; its status and progress are what every node's GET reads."""

    __tablename__ = "analyses"

    match_id: Mapped[str] = mapped_column(
        ForeignKey("matches.id", ondelete="CASCADE"), primary_key=True
    )
    status: Mapped[str] = mapped_column(String(8))  # queued, running, done, failed
    progress: Mapped[float] = mapped_column(Float)  # 0..1
    seed: Mapped[int] = mapped_column(Integer)
    samples: Mapped[int] = mapped_column(Integer)  # ai.review's samples per decision
    attempts: Mapped[int] = mapped_column(Integer)  # starts, a resumed or retried job's too
    result: Mapped[dict[str, Any] | None]  # ai.review.review_json, once done
    error: Mapped[str | None] = mapped_column(String(200))  # why it failed
    created_at: Mapped[datetime]
    started_at: Mapped[datetime | None]
    finished_at: Mapped[datetime | None]
    # Who asked, while the job is pending (its player, its address), for each one's share
    # of the queue (migration 0009).
    requested_by: Mapped[str | None] = mapped_column(String(64))
    requested_from: Mapped[str | None] = mapped_column(String(64))

    __table_args__ = (
        # The jobs a restarted server resumes: the few not done nor failed.
        Index(
            "ix_analyses_pending",
            "created_at",
            sqlite_where=text("status IN ('queued', 'running')"),
            postgresql_where=text("status IN ('queued', 'running')"),
        ),
    )


class ScoreSheet(Base):
    """A score keeper's sheet for a match played with real cards (issue #35): its variant,
    house rules and four names; its deals are :class:`ScoreSheetDeal` rows, scored again
    by the engine whenever it is read."""

    __tablename__ = "scoresheets"

    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    owner_id: Mapped[str] = mapped_column(String(64))  # the player (guest or account)
    variant: Mapped[str] = mapped_column(String(16))
    options: Mapped[dict[str, Any]]  # the house-rule flags as given, Options.make's input
    names: Mapped[list[str]] = mapped_column(JSON)  # seats 0..3; 0 and 2 are team 0
    created_at: Mapped[datetime]

    __table_args__ = (Index("ix_scoresheets_owner", "owner_id", "created_at", "id"),)


class ScoreSheetDeal(Base):
    """One deal of a sheet: the summary of RECORD.md ("Scoring a deal by hand") as entered,
    numbered from 0; the primary key keeps two entries at once from taking one number."""

    __tablename__ = "scoresheet_deals"

    sheet_id: Mapped[str] = mapped_column(
        ForeignKey("scoresheets.id", ondelete="CASCADE"), primary_key=True
    )
    number: Mapped[int] = mapped_column(SmallInteger, primary_key=True)
    summary: Mapped[dict[str, Any]]
    created_at: Mapped[datetime]

