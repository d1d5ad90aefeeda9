"""Names of guests and tables (issue 12): normalized, and refused with a code when they
would mislead other players (reordered text, hidden text, marks piled up, nothing
visible, a bot's name)."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

from app.text import TAG_FLAGS
from tests.conftest import Rest

REFUSED = [
    ("\u202eAna", "name_bidi"),  # right-to-left override: "Ana" then shown reversed
    ("Ana\u202a", "name_bidi"),
    ("\u2066Ivo\u2069", "name_bidi"),
    ("Ivo\u200f", "name_bidi"),  # right-to-left mark
    ("\u200b", "name_invisible"),  # zero-width space
    ("\u200b\u200c\u200d", "name_invisible"),
    ("\ufeff\u2060", "name_invisible"),  # BOM, word joiner
    ("\u0301\u0308", "name_invisible"),  # combining marks alone
    ("   ", "name_invisible"),
    ("\u3000\u00a0", "name_invisible"),  # ideographic and no-break spaces
    ("\u3164", "name_invisible"),  # Hangul filler, drawn blank
    ("", "name_invisible"),
    ("Ana\tIvo", "name_control"),
    ("Ana\x85", "name_control"),  # C1 control
    ("\ufdfa\ufdfa", "name_too_long"),  # 2 characters, 36 once normalized
    ("Ana\u2028Ivo", "name_control"),  # line separator: a line break
    ("Ana\U000e0041\U000e0064\U000e006d", "name_control"),  # "Adm" in tag characters
    ("A" + "\u0336\u0334\u0337\u0321\u0322" + "na", "name_too_many_marks"),  # zalgo
    ("\u00e1" + "\u0308\u0323\u0330\u0331", "name_too_many_marks"),  # á is one more
]
RESERVED = ["Bot", "Bot 2", "bot2", "BOT  12", " Bot 3 ", "Bot\u200b2", "Bót 2",
            "\uff22\uff4f\uff54\uff12", "Robot 1", "Бот 4", "Μποτ 3", "봇 2"]


@pytest.mark.parametrize(("name", "code"), REFUSED)
def test_misleading_names_are_refused(client: TestClient, name: str, code: str) -> None:
    refused = client.post("/api/guests", json={"name": name})
    assert refused.status_code == 422
    assert refused.json()["detail"]["code"] == code


@pytest.mark.parametrize("name", RESERVED)
def test_bot_names_are_kept_for_bots(client: TestClient, name: str) -> None:
    refused = client.post("/api/guests", json={"name": name})
    assert refused.status_code == 422
    assert refused.json()["detail"]["code"] == "name_reserved"


@pytest.mark.parametrize(("name", "kept"), [
    ("  Ana   Maria ", "Ana Maria"),
    ("\uff29\uff56\uff4f", "Ivo"),  # full-width letters
    ("Ana\u0301", "An\u00e1"),  # composed
    ("Botev", "Botev"),
    ("Bot Ana", "Bot Ana"),
    ("Иван", "Иван"),
    ("\u05d0\u05d1\u05d2", "\u05d0\u05d1\u05d2"),  # right-to-left letters themselves are fine
    ("\U0001f468\u200d\U0001f469\u200d\U0001f467", "\U0001f468\u200d\U0001f469\u200d\U0001f467"),
    *[(f"Ivo {flag}", f"Ivo {flag}") for flag in TAG_FLAGS],  # England, Scotland, Wales
    ("Nguy\u1ec5n", "Nguy\u1ec5n"),  # two marks on one letter
])
def test_names_are_normalized(client: TestClient, name: str, kept: str) -> None:
    created = client.post("/api/guests", json={"name": name})
    assert created.status_code == 201, created.text
    assert created.json()["name"] == kept


def test_table_names_are_checked_too(client: TestClient, rest: Rest) -> None:
    ana = rest.auth(rest.guest("Ana"))
    for name, code in [("\u202etable", "name_bidi"), ("\u200b \u200b", "name_invisible")]:
        refused = client.post("/api/tables", json={"name": name}, headers=ana)
        assert refused.status_code == 422 and refused.json()["detail"]["code"] == code
    created = client.post("/api/tables", json={"name": " Bot   night "}, headers=ana)
    assert created.status_code == 201 and created.json()["name"] == "Bot night"
