"""Score sheets (issue #35) over REST on SQLite and PostgreSQL: each deal scored exactly as
``python -m engine score`` scores its summary, the hanging pool carried, totals and the
winner, an impossible summary refused with the engine's reason, the owner's alone, kept
in the owner's list, an entry taken back."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from engine.cli import main as engine_main
from engine.summary import score_summary

from .test_accounts import auth, make_client

pytest_plugins = ["tests.test_db_support"]  # the database fixtures

NAMES = ["Ana", "Boris", "Vera", "Georgi"]
# RECORD.md's example ("Scoring a deal by hand"): team 1's doubled all trumps, 106 to 0.
ALL_TRUMPS = {"contract": "AT", "bidder_team": 1, "multiplier": 2, "card_points": [84, 174],
              "declarations": [[], ["quarte", "carre-J"]], "belot": [0, 1], "valat": None}


@pytest.fixture
def client(db_url: str) -> Iterator[TestClient]:
    with make_client(db_url) as test_client:
        yield test_client


def guest(client: TestClient, name: str = "Ana") -> dict[str, str]:
    response = client.post("/api/guests", json={"name": name})
    assert response.status_code == 201, response.text
    return auth(response.json()["token"])


def new_sheet(client: TestClient, who: dict[str, str], variant: str = "bulgarian",
              options: dict[str, Any] | None = None) -> dict[str, Any]:
    body = {"variant": variant, "options": options or {}, "names": NAMES}
    response = client.post("/api/scoresheets", json=body, headers=who)
    assert response.status_code == 201, response.text
    sheet: dict[str, Any] = response.json()
    return sheet


def engine_score(summary: dict[str, Any], tmp_path: Path,
                 capsys: pytest.CaptureFixture[str]) -> Any:
    """What ``python -m engine score`` prints for ``summary``."""
    path = tmp_path / "summary.json"
    path.write_text(json.dumps(summary))
    capsys.readouterr()
    assert engine_main(["score", str(path)]) == 0
    return json.loads(capsys.readouterr().out)


def refused(response: Any, status: int, code: str) -> str:
    assert response.status_code == status, response.text
    detail = response.json()["detail"]
    assert detail["code"] == code, detail
    return str(detail["message"])


def test_each_deal_is_scored_as_the_engine_scores_it_until_a_winner(
        client: TestClient, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    ana = guest(client)
    sheet = new_sheet(client, ana)
    assert (sheet["names"], sheet["deals"], sheet["totals"], sheet["winner"], sheet["target"]) \
        == (NAMES, [], [0, 0], None, 151)
    assert (sheet["contracts"], sheet["multipliers"], sheet["declaration_contracts"]) == (
        ["C", "D", "H", "S", "NT", "AT"], [1, 2, 4], ["C", "D", "H", "S", "AT"])
    url = f"/api/scoresheets/{sheet['id']}/deals"
    first = client.post(url, json=ALL_TRUMPS, headers=ana)
    assert first.status_code == 201, first.text
    expected = engine_score({"variant": "bulgarian", **ALL_TRUMPS}, tmp_path, capsys)
    assert first.json() == {**expected, "number": 0, "totals": [0, 106], "winner": None}
    second = client.post(url, json={**ALL_TRUMPS, "variant": "bulgarian"}, headers=ana).json()
    assert (second["number"], second["totals"], second["winner"]) == (1, [0, 212], 1)
    message = refused(client.post(url, json=ALL_TRUMPS, headers=ana), 409, "scoresheet_over")
    assert "over" in message
    kept = client.get(f"/api/scoresheets/{sheet['id']}", headers=ana).json()
    assert [d["result"] for d in kept["deals"]] == [expected, expected]
    assert (kept["totals"], kept["winner"]) == ([0, 212], 1)


def test_a_hanging_deal_is_carried_into_the_next(
        client: TestClient, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    ana = guest(client)
    sheet = new_sheet(client, ana, "classic")
    url = f"/api/scoresheets/{sheet['id']}/deals"
    tie = {"contract": "H", "bidder_team": 0, "card_points": [81, 81]}
    assert client.post(url, json=tie, headers=ana).json()["hanging"] == 81
    made = {"contract": "S", "bidder_team": 0, "card_points": [100, 62]}
    refused(client.post(url, json={**made, "carry_in": 0}, headers=ana), 422, "impossible_deal")
    answer = client.post(url, json={**made, "carry_in": 81}, headers=ana).json()
    expected = engine_score({"variant": "classic", **made, "carry_in": 81}, tmp_path, capsys)
    assert {k: answer[k] for k in expected} == expected
    assert answer["totals"] == [sum(x) for x in zip(
        client.get(f"/api/scoresheets/{sheet['id']}", headers=ana).json()["deals"][0]
        ["result"]["score"], expected["score"], strict=True)]


@pytest.mark.parametrize("summary", [
    {"contract": "H", "bidder_team": 0, "card_points": [81, 82]},  # not 162
    {"contract": "NT", "bidder_team": 0, "card_points": [120, 10], "belot": [1, 0]},
    {"contract": "H", "bidder_team": 2, "card_points": [81, 81]},
    {"contract": "H", "bidder_team": 0, "card_points": [81, 81], "seat": 3},
    {"contract": "H", "bidder_team": 0, "card_points": [81, 81], "variant": "classic"},
    ["not", "an", "object"],
])
def test_an_impossible_summary_is_refused_with_the_engines_reason(
        client: TestClient, summary: Any) -> None:
    ana = guest(client)
    sheet = new_sheet(client, ana)
    url = f"/api/scoresheets/{sheet['id']}/deals"
    response = client.post(url, json=summary, headers=ana)
    if isinstance(summary, list):
        assert response.status_code == 422, response.text  # not even a JSON object
    else:
        message = refused(response, 422, "impossible_deal")
        if "variant" not in summary:
            with pytest.raises(ValueError) as reason:
                score_summary({"variant": "bulgarian", **summary})
            assert message == str(reason.value)
    assert client.get(f"/api/scoresheets/{sheet['id']}", headers=ana).json()["deals"] == []


def test_a_sheet_is_its_owners_alone_and_listed_in_its_history(client: TestClient) -> None:
    ana, ivo = guest(client), guest(client, "Ivo")
    first = new_sheet(client, ana)
    second = new_sheet(client, ana, "classic", {"litige": "carry"})
    assert (second["options"], second["contracts"], second["multipliers"]) == (
        {"litige": "carry"}, ["C", "D", "H", "S"], [1])
    path = f"/api/scoresheets/{first['id']}"
    refused(client.get(path, headers=ivo), 404, "scoresheet_not_found")
    refused(client.post(f"{path}/deals", json=ALL_TRUMPS, headers=ivo), 404,
            "scoresheet_not_found")
    refused(client.get(path), 401, "missing_token")
    listed = client.get("/api/scoresheets", headers=ana).json()["sheets"]
    assert [s["id"] for s in listed] == [second["id"], first["id"]]
    assert client.get("/api/scoresheets", headers=ivo).json()["sheets"] == []


def test_the_last_entry_can_be_taken_back(client: TestClient) -> None:
    ana = guest(client)
    sheet = new_sheet(client, ana)
    path = f"/api/scoresheets/{sheet['id']}"
    client.post(f"{path}/deals", json=ALL_TRUMPS, headers=ana)
    taken = client.delete(f"{path}/deals/last", headers=ana)
    assert taken.status_code == 200, taken.text
    assert (taken.json()["deals"], taken.json()["totals"]) == ([], [0, 0])
    assert client.delete(f"{path}/deals/last", headers=ana).json()["deals"] == []


@pytest.mark.parametrize(("body", "code"), [
    ({"variant": "bulgarian", "names": NAMES[:3]}, "too_short"),
    ({"variant": "belote", "names": NAMES}, "enum"),
    ({"variant": "classic", "options": {"litige": "never"}, "names": NAMES}, "bad_options"),
    ({"variant": "classic", "options": {"variant": "bulgarian"}, "names": NAMES},
     "bad_options"),
    ({"variant": "coinche", "options": {"target_score": 10001}, "names": NAMES},
     "bad_options"),  # a room's target is at most ten times the usual one
    ({"variant": "classic", "names": ["Ana", "Boris", "Vera", "\u202eGeorgi"]}, "name_bidi"),
])
def test_a_bad_sheet_is_refused(client: TestClient, body: dict[str, Any], code: str) -> None:
    response = client.post("/api/scoresheets", json=body, headers=guest(client))
    assert response.status_code == 422, response.text
    detail = response.json()["detail"]
    assert code in (detail["code"], *(f["code"] for f in detail.get("fields", []))), detail


# COINCHE.md §10.4's example: team 0's coinched 100 in spades, made with a belote.
COINCHED = {"contract": "100S", "bidder_team": 0, "coinche": 1, "card_points": [95, 67],
            "belot": [1, 0], "declarations": [[], []], "capot": None,
            "declarer_all_tricks": False}


def test_a_coinche_deal_is_scored_as_the_engine_scores_it(
        client: TestClient, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A Coinche sheet offers the strains its house rules enable, its bid values and
    coinche levels from the engine, and scores a summary of COINCHE.md §10.4 as
    ``python -m engine score`` does."""
    ana = guest(client)
    options = {"preset": "ffb_contree"}
    sheet = new_sheet(client, ana, "coinche", options)
    assert sheet["contracts"] == ["C", "D", "H", "S"]
    coinche = sheet["coinche"]
    assert coinche["bid_values"][:2] == ["80", "90"] and "capot" in coinche["bid_values"]
    assert coinche["multipliers"] == [1, 2, 4]
    assert set(coinche["capot_points"]) == set(coinche["bid_values"])
    assert (coinche["capot_points"]["80"], coinche["capot_points"]["capot"]) == (252, 252)
    assert set(sheet["card_totals"].values()) == {162}
    assert sheet["most_belots"] == {"C": 1, "D": 1, "H": 1, "S": 1}
    both = new_sheet(client, ana, "coinche", {"allow_sa": True, "allow_ta": True,
                                              "ta_belote": "none", "generale": True,
                                              "unannounced_capot_bonus": False})
    assert both["contracts"] == ["C", "D", "H", "S", "SA", "TA"]
    assert {v: both["coinche"]["capot_points"][v] for v in ("80", "capot", "generale")} == {
        "80": 162, "capot": 252, "generale": 252}
    assert (both["most_belots"]["SA"], both["most_belots"]["TA"]) == (0, 0)
    response = client.post(f"/api/scoresheets/{sheet['id']}/deals", json=COINCHED, headers=ana)
    assert response.status_code == 201, response.text
    expected = engine_score({"variant": "coinche", "options": options, **COINCHED},
                            tmp_path, capsys)
    assert response.json() == {**expected, "number": 0, "totals": expected["score"],
                               "winner": None}
    bulgarian = new_sheet(client, ana)
    assert (bulgarian["card_totals"]["NT"], bulgarian["card_totals"]["AT"],
            bulgarian["most_belots"]["AT"], bulgarian["coinche"]) == (130, 258, 4, None)
