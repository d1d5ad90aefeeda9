"""Names people choose (guests and tables): normalized, and refused when they would
mislead the other players at a table.

A name is NFKC-normalized (full-width and compatibility forms become plain letters) and
its whitespace trimmed and collapsed.  Refused, each with its own code in the 422 answer
(``detail.code``): what app/text.py refuses in anything players read (control characters
and line breaks, tag characters, bidi controls, marks piled on one character), names
with nothing visible, names longer than :data:`MAX_NAME`, and, for players, the names
bots are shown with.
"""

from __future__ import annotations

import re
import unicodedata

from pydantic_core import PydanticCustomError

from .errors import ErrorCode
from .text import MAX_MARKS, Refusal, has_visible, refusal, visible

MAX_NAME = 32
REFUSALS = {
    Refusal.CONTROL: (ErrorCode.NAME_CONTROL, "a name cannot hold control characters"),
    Refusal.BIDI: (ErrorCode.NAME_BIDI, "a name cannot hold bidirectional text controls"),
    Refusal.MARKS: (ErrorCode.NAME_TOO_MANY_MARKS,
                    f"a name has at most {MAX_MARKS} combining marks on one character"),
}


def clean_name(value: str) -> str:
    """``value`` normalized, or PydanticCustomError (a 422 with a code) if it misleads."""
    name = unicodedata.normalize("NFKC", value)
    reason = refusal(name)
    if reason is not None:
        raise _refused(*REFUSALS[reason])
    name = " ".join(name.split())
    if not has_visible(name):
        raise _refused(ErrorCode.NAME_INVISIBLE, "a name needs at least one visible character")
    if len(name) > MAX_NAME:
        raise _refused(ErrorCode.NAME_TOO_LONG, f"a name has at most {MAX_NAME} characters")
    return name


def clean_player_name(value: str) -> str:
    """A guest's name: :func:`clean_name`, and not one that passes for a bot's."""
    name = clean_name(value)
    if RESERVED.fullmatch(_skeleton(name)):
        raise _refused(ErrorCode.NAME_RESERVED, "that name is kept for bots")
    return name


def _skeleton(name: str) -> str:
    """What the name looks like: invisible characters and accents dropped, case folded,
    so that "BOT\u200b 2" or "Bót2" compare equal to "bot 2"."""
    decomposed = unicodedata.normalize("NFKD", name)
    kept = "".join(ch for ch in decomposed if ch == " " or visible(ch))
    return " ".join(kept.split()).casefold()


def _refused(code: ErrorCode, message: str) -> PydanticCustomError:
    return PydanticCustomError(code, message)


# How the client shows a bot in each of its languages, alone or numbered ("Bot 2"):
# seat.bot and seat.bot_name of app/static/i18n/*/core.json.
BOT_WORDS = ("Bot", "Robot", "Бот", "Μποτ", "봇")
RESERVED = re.compile(f"({'|'.join(re.escape(_skeleton(w)) for w in BOT_WORDS)})\\s*\\d*")
