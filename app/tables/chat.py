"""Chat at a table: quick phrases and short free text from the seated players, read by the
seated players and, if the table's creator allowed it, by its spectators.

Chat is not part of the match: nothing of it is logged, and a table keeps only its last
:data:`KEPT` messages, in memory, for the snapshot of a client that (re)connects (a
restart, or the table moving to another node, forgets them).  The server keeps plain
text and sends it inside JSON; showing it as text, never as HTML, is the client's part.
A phrase travels as its id, so that each reader sees it in their own language.
"""

from __future__ import annotations

import unicodedata
from collections import deque

from ..errors import ErrorCode
from ..events import ChatEvent
from ..protocol import Error
from ..ratelimit import TokenBucket
from ..text import MAX_MARKS, Refusal, has_visible, refusal
from .audience import Audience
from .clients import Client
from .clock import Clock
from .commands import Say
from .errors import TableError

# The quick phrases, by id; their texts are the client's (i18n chat.json, "phrase.<id>").
PHRASES = ("hello", "good_luck", "have_fun", "well_played", "nice_hand", "thanks", "sorry",
           "oops", "hurry", "good_game", "bye")
MAX_TEXT = 200  # characters (code points) of free text, once trimmed
KEPT = 50  # recent messages a (re)connecting client gets in its snapshot
BURST, RATE = 5, 0.5  # a player's messages: five at once, then one every two seconds
REFUSALS = {
    Refusal.CONTROL: (ErrorCode.CHAT_CONTROL, "a message cannot hold control characters"),
    Refusal.BIDI: (ErrorCode.CHAT_CONTROL, "a message cannot hold bidirectional text controls"),
    Refusal.MARKS: (ErrorCode.CHAT_TOO_MANY_MARKS,
                    f"a message has at most {MAX_MARKS} combining marks on one character"),
}


class Chat:
    """A table's recent messages, each player's rate limit, and who reads them."""

    def __init__(self, audience: Audience, clock: Clock, spectator_chat: bool) -> None:
        """``spectator_chat``: the table's, whether its spectators read the players."""
        self._audience = audience
        self._clock = clock
        self._spectator_chat = spectator_chat
        self._recent: deque[ChatEvent] = deque(maxlen=KEPT)
        self._buckets: dict[str, TokenBucket] = {}
        # Pairs of players of whom one blocks the other: neither reads the other.
        self.apart: set[frozenset[str]] = set()

    def recent(self, client: Client) -> list[ChatEvent]:
        """The recent messages ``client`` may read, oldest first."""
        if not self.may_read(client):
            return []
        return [line for line in self._recent if not self._blocked(client, line.player)]

    def may_read(self, client: Client) -> bool:
        return client.seat is not None or self._spectator_chat

    def say(self, command: Say) -> None:
        """A chat message: to everyone at the table who may read it, or its refusal to its
        sender alone.  It changes no version: the game does not move."""
        client = command.client
        try:
            line = self._line(client, command)
        except TableError as exc:
            client.send(Error(code=exc.code, message=str(exc)).model_dump_json())
            return
        self._audience.broadcast(lambda viewer: line, to=lambda reader: self.may_read(
            reader) and not self._blocked(reader, line.player))

    def _blocked(self, reader: Client, sender: str) -> bool:
        return frozenset((reader.player.id, sender)) in self.apart

    def _line(self, client: Client, command: Say) -> ChatEvent:
        """The event of ``client``'s message, kept; TableError if it is refused."""
        seat = client.seat
        if seat is None:
            raise TableError(ErrorCode.NOT_SEATED, "only the seated players chat")
        text, phrase = ((clean_text(command.text), None) if command.text is not None
                        else (None, known_phrase(command.phrase)))
        player = client.player
        bucket = self._buckets.get(player.id)
        if bucket is None:
            bucket = self._buckets[player.id] = TokenBucket(RATE, BURST, self._clock.time)
        if not bucket.take():
            raise TableError(ErrorCode.CHAT_TOO_FAST, "too many chat messages; wait a moment")
        line = ChatEvent(seat=seat, player=player.id, name=player.name, text=text,
                         phrase=phrase, time=int(self._clock.time() * 1000))
        self._recent.append(line)
        return line


def clean_text(text: str) -> str:
    """Free text as kept: NFC (an accent and its letter one character), trimmed, and
    refused as app/text.py says (control characters and line breaks, tag characters, bidi
    controls, which could make a line seem to say something else or come from someone
    else; marks piled on one character), if nothing of it shows, or if it is too long."""
    text = unicodedata.normalize("NFC", text).strip()
    reason = refusal(text)
    if reason is not None:
        raise TableError(*REFUSALS[reason])
    if not has_visible(text):
        raise TableError(ErrorCode.CHAT_EMPTY, "the message is empty")
    if len(text) > MAX_TEXT:
        raise TableError(ErrorCode.CHAT_TOO_LONG, f"a message has at most {MAX_TEXT} characters")
    return text


def known_phrase(phrase: str | None) -> str:
    if phrase is None or phrase not in PHRASES:
        raise TableError(ErrorCode.UNKNOWN_PHRASE, f"no quick phrase {str(phrase)[:32]!r}")
    return phrase
