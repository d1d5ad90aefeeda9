"""Usernames: what an account logs in with and is shown as, so they must be unambiguous.

ASCII letters, digits, ``_`` and ``-`` only: letters of other scripts would let "аdmin"
(a Cyrillic а) pass for "admin", and no confusable check is needed.  Uniqueness ignores
case: the folded form is what the database keeps unique and what logins look up.
"""

from __future__ import annotations

import re

from pydantic_core import PydanticCustomError

from ..errors import ErrorCode
from ..names import RESERVED as BOT_NAMES

MIN_USERNAME, MAX_USERNAME = 3, 24
_PATTERN = re.compile(rf"[A-Za-z0-9_-]{{{MIN_USERNAME},{MAX_USERNAME}}}")
# Names that would pass for the site's staff or machinery; "admin_2" or "Root-99" too.
RESERVED_WORDS = frozenset({
    "admin", "administrator", "root", "system", "server", "moderator", "mod", "staff",
    "support", "help", "guest", "anonymous", "bot", "robot", "belote", "belot", "official",
    "null", "none", "undefined", "me", "api", "owner", "dealer", "player", "nobody",
})


def fold(username: str) -> str:
    """The form usernames are compared in: ``Ana`` and ``ANA`` are one account."""
    return username.casefold()


def check_username(value: str) -> str:
    """``value`` if it may name a new account, else a 422 with ``bad_username`` or
    ``reserved_username``."""
    if not _PATTERN.fullmatch(value):
        raise PydanticCustomError(
            ErrorCode.BAD_USERNAME, f"a username has {MIN_USERNAME} to {MAX_USERNAME} letters, "
            "digits, '_' or '-'")
    stem = re.sub(r"[\d_-]+$", "", re.sub(r"^[_-]+", "", fold(value)))
    if stem in RESERVED_WORDS or BOT_NAMES.fullmatch(fold(value)):
        raise PydanticCustomError(ErrorCode.RESERVED_USERNAME, "that username is reserved")
    return value
