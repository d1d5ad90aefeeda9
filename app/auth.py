"""Guest identities: a chosen name becomes a signed token that REST and WebSocket both accept.

Signing is itsdangerous's (HMAC with the settings' secret and a salt), so a token cannot be
forged or edited, and it expires after ``token_max_age``.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass

from itsdangerous import BadSignature, URLSafeTimedSerializer

_SALT = "belote-guest"


@dataclass(frozen=True, slots=True)
class Player:
    id: str
    name: str


class InvalidToken(Exception):
    """The token is malformed, forged or expired."""


class Tokens:
    """Issues and checks guest tokens with one secret."""

    def __init__(self, secret: str, max_age: int) -> None:
        self._serializer = URLSafeTimedSerializer(secret, salt=_SALT)
        self._max_age = max_age

    def issue(self, name: str) -> tuple[Player, str]:
        player = Player(uuid.uuid4().hex, name)
        return player, self._serializer.dumps({"id": player.id, "name": player.name})

    def read(self, token: str) -> Player:
        try:
            data = self._serializer.loads(token, max_age=self._max_age)
        except BadSignature as exc:  # SignatureExpired is a subclass
            raise InvalidToken(str(exc)) from exc
        if not isinstance(data, dict):
            raise InvalidToken("not a guest token")
        player_id, name = data.get("id"), data.get("name")
        if not isinstance(player_id, str) or not isinstance(name, str):
            raise InvalidToken("not a guest token")
        return Player(player_id, name)
