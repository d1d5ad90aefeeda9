"""Text one player writes and the others read (names, chat): what is refused because it
would hide itself, reorder or break the lines around it, or spill over its neighbours.

The callers normalize first (names NFKC, chat NFC) and answer a :class:`Refusal` with
codes of their own (app/names.py, app/tables/chat.py).
"""

from __future__ import annotations

import unicodedata
from enum import Enum

BIDI_CONTROLS = frozenset(
    "\u061c\u200e\u200f"  # marks: Arabic letter, left-to-right, right-to-left
    "\u202a\u202b\u202c\u202d\u202e"  # embeddings, pop, overrides
    "\u2066\u2067\u2068\u2069"  # isolates
)
# C0, DEL, C1 and lone surrogates; the line and paragraph separators, line breaks as
# much as "\n" is.
CONTROL_CATEGORIES = frozenset({"Cc", "Cs", "Zl", "Zp"})
# Tag characters: invisible copies of ASCII, which carry hidden text ("ASCII smuggling")
# that some readers (a screen reader, a program reading the chat) would still read.
TAGS = range(0xE0000, 0xE0080)
# Their one visible use: the subdivision flags, a black flag then tags (England, Scotland,
# Wales, the only ones emoji fonts draw).
TAG_FLAGS = tuple("\U0001f3f4" + "".join(chr(0xE0000 + ord(c)) for c in code) + "\U000e007f"
                  for code in ("gbeng", "gbsct", "gbwls"))
# Drawn as nothing: format characters (zero-width spaces and joiners, U+FEFF, U+2060...),
# combining marks without a base, separators; and letters or symbols that render blank.
INVISIBLE_CATEGORIES = frozenset({"Cf", "Mn", "Me", "Zs", "Zl", "Zp"})
BLANK_CHARACTERS = frozenset("\u115f\u1160\u3164\uffa0\u2800")  # Hangul fillers, braille blank
# Marks stacked on one character: enough for the scripts that stack them
# (Hebrew points and cantillation, Thai, Tibetan, a keycap emoji), while "zalgo" text
# piles up dozens that spill over the lines above and below.
MARK_CATEGORIES = frozenset({"Mn", "Me"})
MAX_MARKS = 4


class Refusal(Enum):
    CONTROL = "control"  # control characters, line breaks, tag characters
    BIDI = "bidi"  # bidirectional controls: what follows them seems to say something else
    MARKS = "marks"  # more than MAX_MARKS combining marks on one character


def refusal(text: str) -> Refusal | None:
    """Why ``text`` (normalized) may not be shown to others, or None if it may."""
    untagged = text
    for flag in TAG_FLAGS:
        untagged = untagged.replace(flag, "")
    if any(unicodedata.category(ch) in CONTROL_CATEGORIES or ord(ch) in TAGS
           for ch in untagged):
        return Refusal.CONTROL
    if any(ch in BIDI_CONTROLS for ch in text):
        return Refusal.BIDI
    if most_stacked(text) > MAX_MARKS:
        return Refusal.MARKS
    return None


def most_stacked(text: str) -> int:
    """The most combining marks on one character of ``text``, those a precomposed letter
    holds included ("ệ" has two).  Format characters (a zero-width joiner...) between
    them are drawn as nothing, so they do not part them."""
    most = stacked = 0
    for ch in unicodedata.normalize("NFD", text):
        category = unicodedata.category(ch)
        if category in MARK_CATEGORIES:
            stacked += 1
            most = max(most, stacked)
        elif category != "Cf":
            stacked = 0
    return most


def visible(ch: str) -> bool:
    return unicodedata.category(ch) not in INVISIBLE_CATEGORIES and ch not in BLANK_CHARACTERS


def has_visible(text: str) -> bool:
    """Whether ``text`` shows anything at all."""
    return any(visible(ch) for ch in text)
