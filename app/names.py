"""Names people choose (guests and tables): normalized, and refused when they would
mislead the other players at a table.

A name is NFKC-normalized (full-width and compatibility forms become plain letters) and
its whitespace trimmed and collapsed.  Refused, each with its own code in the 422 answer
(``detail.code``): control characters, bidi controls (they reorder what comes after
them, so a name could seem to say something else), names with nothing visible, names
longer than :data:`MAX_NAME`, and, for players, the names bots are shown with.
"""

from __future__ import annotations

import re
import unicodedata

from pydantic_core import PydanticCustomError

MAX_NAME = 32
BIDI_CONTROLS = frozenset(
    "\u061c\u200e\u200f"  # marks: Arabic letter, left-to-right, right-to-left
    "\u202a\u202b\u202c\u202d\u202e"  # embeddings, pop, overrides
    "\u2066\u2067\u2068\u2069"  # isolates
)
# Drawn as nothing: format characters (zero-width spaces and joiners, U+FEFF, U+2060...),
# combining marks without a base, separators; and letters or symbols that render blank.
INVISIBLE_CATEGORIES = frozenset({"Cf", "Mn", "Me", "Zs", "Zl", "Zp"})
BLANK_CHARACTERS = frozenset("\u115f\u1160\u3164\uffa0\u2800")  # Hangul fillers, braille blank
CONTROL_CATEGORIES = frozenset({"Cc", "Cs"})  # C0, DEL, C1; lone surrogates


def clean_name(value: str) -> str:
    """``value`` normalized, or PydanticCustomError (a 422 with a code) if it misleads."""
    name = unicodedata.normalize("NFKC", value)
    if any(unicodedata.category(ch) in CONTROL_CATEGORIES for ch in name):
        raise _refused("name_control", "a name cannot hold control characters")
    if any(ch in BIDI_CONTROLS for ch in name):
        raise _refused("name_bidi", "a name cannot hold bidirectional text controls")
    name = " ".join(name.split())
    if not any(_visible(ch) for ch in name):
        raise _refused("name_invisible", "a name needs at least one visible character")
    if len(name) > MAX_NAME:
        raise _refused("name_too_long", f"a name has at most {MAX_NAME} characters")
    return name


def clean_player_name(value: str) -> str:
    """A guest's name: :func:`clean_name`, and not one that passes for a bot's."""
    name = clean_name(value)
    if RESERVED.fullmatch(_skeleton(name)):
        raise _refused("name_reserved", "that name is kept for bots")
    return name


def _visible(ch: str) -> bool:
    return unicodedata.category(ch) not in INVISIBLE_CATEGORIES and ch not in BLANK_CHARACTERS


def _skeleton(name: str) -> str:
    """What the name looks like: invisible characters and accents dropped, case folded,
    so that "BOT\u200b 2" or "Bót2" compare equal to "bot 2"."""
    decomposed = unicodedata.normalize("NFKD", name)
    kept = "".join(ch for ch in decomposed if ch == " " or _visible(ch))
    return " ".join(kept.split()).casefold()


def _refused(code: str, message: str) -> PydanticCustomError:
    return PydanticCustomError(code, message)


# How the client shows a bot in each of its languages, alone or numbered ("Bot 2"):
# seat.bot and seat.bot_name of app/static/i18n/*/core.json.
BOT_WORDS = ("Bot", "Robot", "Бот", "Μποτ", "봇")
RESERVED = re.compile(f"({'|'.join(re.escape(_skeleton(w)) for w in BOT_WORDS)})\\s*\\d*")
