"""The accounts' rows: a sign-up (a new player, or a guest's own row kept), a lookup by
username, a new password.  Sessions have theirs in app/accounts/sessions.py."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from sqlalchemy import ColumnElement, insert, select, update

from . import models
from .session import Database, StorageError


@dataclass(frozen=True, slots=True)
class AccountRow:
    player_id: str
    username: str
    password_hash: str


class AccountTaken(Exception):
    """The username (case aside), or the player, has an account already."""


async def create_account(db: Database, player_id: str, username: str, key: str,
                         password_hash: str) -> None:
    """The account of ``player_id``, whose name becomes ``username``: the player's row
    is made if the player never sat at a table, and kept (with its matches) if it did."""
    now = datetime.now(UTC)
    if await find_account(db, key) is not None or await account_of(db, player_id):
        raise AccountTaken(username)
    try:
        await _insert(db, player_id, username, key, password_hash, now)
    except StorageError:  # a unique key: the same name, or the same guest, just now
        if await find_account(db, key) is not None or await account_of(db, player_id):
            raise AccountTaken(username) from None
        raise


async def _insert(db: Database, player_id: str, username: str, key: str,
                  password_hash: str, now: datetime) -> None:
    async with db.write() as conn:
        known = await conn.scalar(select(models.Player.id).where(models.Player.id == player_id))
        if known is None:
            await conn.execute(insert(models.Player),
                               {"id": player_id, "name": username, "created_at": now})
        else:
            await conn.execute(update(models.Player).where(models.Player.id == player_id)
                               .values(name=username))
        await conn.execute(insert(models.Account), {
            "player_id": player_id, "username": username, "username_key": key,
            "password_hash": password_hash, "created_at": now, "password_changed_at": now})


async def find_account(db: Database, key: str) -> AccountRow | None:
    """The account whose folded username is ``key``."""
    return await _account(db, models.Account.username_key == key)


async def account_of(db: Database, player_id: str) -> AccountRow | None:
    return await _account(db, models.Account.player_id == player_id)


async def _account(db: Database, where: ColumnElement[bool]) -> AccountRow | None:
    a = models.Account
    async with db.read() as session:
        row = (await session.execute(select(a.player_id, a.username, a.password_hash)
                                     .where(where))).first()
    return None if row is None else AccountRow(*row)


async def set_password(db: Database, player_id: str, password_hash: str) -> None:
    a = models.Account
    async with db.write() as conn:
        await conn.execute(update(a).where(a.player_id == player_id).values(
            password_hash=password_hash, password_changed_at=datetime.now(UTC)))


async def recent_accounts(db: Database, within: timedelta) -> list[str]:
    """Players who became accounts in the last ``within``: guest tokens issued to them
    before may still be alive, and must not act for the account."""
    a = models.Account
    async with db.read() as session:
        rows = await session.execute(select(a.player_id)
                                     .where(a.created_at > datetime.now(UTC) - within))
    return list(rows.scalars())
