"""The REST API in-process: guests, tables, seats, bots, start, permissions, records."""

from __future__ import annotations

from fastapi.testclient import TestClient

from tests.conftest import Rest


def test_static_placeholder_and_openapi(client: TestClient) -> None:
    page = client.get("/")
    assert page.status_code == 200 and 'href="/docs"' in page.text
    paths = client.get("/openapi.json").json()["paths"]
    assert "/api/tables/{table_id}/seats/{seat}/bot" in paths
    assert client.get("/api/health").json() == {"status": "ok"}


def test_tokens_are_required_and_checked(client: TestClient, rest: Rest) -> None:
    assert client.post("/api/tables", json={"name": "x"}).status_code == 401
    bad = {"Authorization": "Bearer not-a-token"}
    assert client.post("/api/tables", json={"name": "x"}, headers=bad).status_code == 401
    assert client.post("/api/guests", json={"name": ""}).status_code == 422


def test_create_with_house_rules_and_list(client: TestClient, rest: Rest) -> None:
    ana = rest.guest("Ana")
    body = {"name": "Sofia", "variant": "classic", "turn_seconds": 12,
            "options": {"litige": "takers_fail", "target_score": 501}}
    created = client.post("/api/tables", json=body, headers=rest.auth(ana))
    assert created.status_code == 201, created.text
    table = created.json()
    assert table["options"]["litige"] == "takers_fail" and table["options"]["target_score"] == 501
    assert table["turn_seconds"] == 12 and table["status"] == "waiting" and table["version"] == 0
    hidden = client.post("/api/tables", json={"name": "mine", "private": True},
                         headers=rest.auth(ana)).json()
    listed = {t["id"] for t in client.get("/api/tables").json()["tables"]}
    assert table["id"] in listed and hidden["id"] not in listed
    assert client.get(f"/api/tables/{hidden['id']}").json()["private"] is True
    for options in [{"litige": "nope"}, {"valat_multiplied": False}, {"made_up": True},
                    {"target_score": 0}, {"target_score": True}, {"variant": "classic"},
                    {"target_score": 10_001}, {"target_score": 10**18}]:
        refused = client.post("/api/tables", json=body | {"options": options},
                              headers=rest.auth(ana))
        assert refused.status_code == 422, options
        assert refused.json()["detail"]["code"] == "bad_options"


def test_seats_bots_and_start(client: TestClient, rest: Rest) -> None:
    ana, ivo, eve = rest.guest("Ana"), rest.guest("Ivo"), rest.guest("Eve")
    table_id = rest.table(ana, [ana, "easy", ivo])
    url = f"/api/tables/{table_id}"

    def code(response: object) -> str:
        detail: str = response.json()["detail"]["code"]  # type: ignore[attr-defined]
        return detail

    taken = client.put(f"{url}/seats/1", headers=rest.auth(eve))
    assert taken.status_code == 409 and code(taken) == "seat_taken"
    twice = client.put(f"{url}/seats/3", headers=rest.auth(ana))
    assert twice.status_code == 409 and code(twice) == "already_seated"
    not_yours = client.delete(f"{url}/seats/2", headers=rest.auth(ana))
    assert not_yours.status_code == 403 and code(not_yours) == "not_your_seat"
    stranger = client.put(f"{url}/seats/3/bot", json={"level": "hard"}, headers=rest.auth(eve))
    assert stranger.status_code == 403
    early = client.post(f"{url}/start", headers=rest.auth(ana))
    assert early.status_code == 409 and code(early) == "seats_empty"
    assert client.get(f"{url}/seats/4").status_code in (404, 405)
    assert client.put(f"{url}/seats/4", headers=rest.auth(eve)).status_code == 422
    assert client.put(f"{url}/seats/3/bot", json={"level": "genius"},
                      headers=rest.auth(ana)).status_code == 422

    # Ivo leaves and comes back; a bot goes in and out of seat 3.
    left = client.delete(f"{url}/seats/2", headers=rest.auth(ivo)).json()
    assert left["seats"][2]["kind"] == "empty"
    assert client.put(f"{url}/seats/2", headers=rest.auth(ivo)).status_code == 200
    assert code(client.put(f"{url}/seats/3/bot", json={"level": "hard"},
                           headers=rest.auth(ivo))) == "not_allowed"  # the creator decides
    bot = client.put(f"{url}/seats/3/bot", json={"level": "hard"},
                     headers=rest.auth(ana)).json()["seats"][3]
    assert bot.pop("rating")["bot"] is True  # the level's fixed rating (tests/test_rated.py)
    assert bot == {"kind": "bot", "name": None, "level": "hard", "connected": False,
                   "autoplay": False, "account": False}
    assert code(client.delete(f"{url}/seats/0/bot", headers=rest.auth(ana))) == "not_a_bot"
    assert client.delete(f"{url}/seats/3/bot", headers=rest.auth(ana)).json()["seats"][3][
        "kind"] == "empty"
    before = client.get(url).json()["version"]
    client.put(f"{url}/seats/3/bot", json={"level": "normal"}, headers=rest.auth(ana))
    assert code(client.post(f"{url}/start", headers=rest.auth(ivo))) == "not_allowed"
    started = client.post(f"{url}/start", headers=rest.auth(ana))
    assert started.status_code == 200
    assert started.json()["status"] == "playing" and started.json()["version"] == before + 2
    assert code(client.post(f"{url}/start", headers=rest.auth(ana))) == "not_waiting"
    assert code(client.put(f"{url}/seats/3", headers=rest.auth(eve))) == "seat_taken"
    assert code(client.get(f"{url}/record")) == "not_over"
    assert table_id not in {t["id"] for t in client.get("/api/tables").json()["tables"]}


def test_bots_only_tables_do_not_start(client: TestClient, rest: Rest) -> None:
    ana = rest.guest("Ana")
    table_id = rest.table(ana, ["easy", "easy", "easy", "easy"])
    refused = client.post(f"/api/tables/{table_id}/start", headers=rest.auth(ana))
    assert refused.status_code == 409 and refused.json()["detail"]["code"] == "no_humans"


def test_unknown_table(client: TestClient, rest: Rest) -> None:
    ana = rest.guest("Ana")
    assert client.get("/api/tables/nope").status_code == 404
    assert client.put("/api/tables/nope/seats/0", headers=rest.auth(ana)).status_code == 404


def test_variants_list_each_flag_with_its_default_and_values(client: TestClient) -> None:
    variants = client.get("/api/variants").json()
    assert set(variants) == {"bulgarian", "classic", "coinche"}
    assert variants["bulgarian"]["table_direction"] == {
        "default": "counterclockwise", "values": ["counterclockwise", "clockwise"]}
    assert variants["classic"]["table_direction"]["default"] == "clockwise"
    assert variants["classic"]["target_score"] == {"default": 1000, "values": [], "max": 10000}
    assert variants["bulgarian"]["target_score"]["max"] == 1510
    assert "litige" in variants["classic"] and "litige" not in variants["bulgarian"]
    assert "long_run" in variants["bulgarian"] and "long_run" not in variants["classic"]
    assert variants["coinche"]["preset"] == {"default": "default", "values": [
        "default", "ffb_contree", "ffb_coinche", "pagat", "bga_coinche", "colver", "club_simple"]}
    assert variants["coinche"]["rounding"] == {
        "default": "nearest_5_up", "values": ["nearest_5_up", "nearest_6_up", "none"]}
    assert variants["coinche"]["target_score"] == {"default": 1000, "values": [], "max": 10000}
    assert "preset" not in variants["classic"]


def test_client_files_are_served_and_revalidated(client: TestClient) -> None:
    for path in ("/", "/js/main.js", "/css/app.css", "/i18n/en/core.json"):
        response = client.get(path)
        assert response.status_code == 200, path
        assert response.headers["cache-control"] == "no-cache", path
