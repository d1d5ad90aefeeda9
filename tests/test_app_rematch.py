"""Rematch: a finished table's players get a new table with the same settings, bots and
seats, and the others at the old table are told where it is."""

from __future__ import annotations

import threading

from fastapi.testclient import TestClient

from tests.conftest import Rest
from tests.test_app_ws import play_to_the_end, seated, until


def test_rematch_copies_the_table_and_brings_everyone_to_one_new_table(
        client: TestClient, rest: Rest) -> None:
    ana, ivo, eve = rest.guest("Ana"), rest.guest("Ivo"), rest.guest("Eve")
    options = {"target_score": 1, "litige": "takers_fail"}  # one deal ends the match
    table_id = rest.table(ana, [ana, "hard", ivo, "easy"], variant="classic",
                          options=options, turn_seconds=45)
    url = f"/api/tables/{table_id}"
    early = client.post(f"{url}/rematch", headers=rest.auth(ana))
    assert early.status_code == 409 and early.json()["detail"]["code"] == "not_over"

    with seated(client, table_id, ana) as (ws_ana, _), seated(client, table_id, ivo) as (
            ws_ivo, _):
        rest.start(table_id, ana)
        first = until(ws_ivo, lambda m: m["type"] == "event")
        # Ivo plays his turns on his socket while Ana plays hers.
        ivo_done = threading.Thread(target=play_to_the_end, args=(ws_ivo, 2, first))
        ivo_done.start()
        over = play_to_the_end(ws_ana, 0, until(ws_ana, lambda m: m["type"] == "event"))
        ivo_done.join()
        assert over["table"]["status"] == "over" and over["table"]["rematch"] is None

        stranger = client.post(f"{url}/rematch", headers=rest.auth(eve))
        assert stranger.status_code == 403 and stranger.json()["detail"]["code"] == "not_allowed"

        made = client.post(f"{url}/rematch", headers=rest.auth(ana))
        assert made.status_code == 200, made.text
        new = made.json()
        assert new["id"] != table_id and new["status"] == "waiting"
        assert (new["name"], new["variant"], new["turn_seconds"]) == ("test", "classic", 45)
        assert new["options"]["target_score"] == 1 and new["options"]["litige"] == "takers_fail"
        assert [(s["kind"], s["name"], s["level"]) for s in new["seats"]] == [
            ("human", "Ana", None), ("bot", None, "hard"), ("empty", None, None),
            ("bot", None, "easy")]

        told = until(ws_ivo, lambda m: m["type"] == "event" and m["event"]["kind"] == "rematch")
        assert told["event"]["table_id"] == new["id"] and told["table"]["rematch"] == new["id"]
        assert told["version"] == over["version"]  # nothing changed at the old table

    # Ivo follows: the same new table, his old seat; asking twice changes nothing.
    joined = client.post(f"{url}/rematch", headers=rest.auth(ivo)).json()
    assert joined["id"] == new["id"] and joined["seats"][2]["name"] == "Ivo"
    again = client.post(f"{url}/rematch", headers=rest.auth(ivo)).json()
    assert again["id"] == new["id"] and again["version"] == joined["version"]
    assert client.get(url).json()["rematch"] == new["id"]
    # Leaving the new table and asking again seats him there again.
    left = client.delete(f"/api/tables/{new['id']}/seats/2", headers=rest.auth(ivo))
    assert left.status_code == 200 and left.json()["seats"][2]["kind"] == "empty"
    back = client.post(f"{url}/rematch", headers=rest.auth(ivo)).json()
    assert back["id"] == new["id"] and back["seats"][2]["name"] == "Ivo"
    refused = client.post(f"/api/tables/{new['id']}/start", headers=rest.auth(ivo))
    assert refused.status_code == 403  # the new table is its first asker's: Ana starts it
    rest.start(new["id"], ana)
    assert client.get(f"/api/tables/{new['id']}").json()["status"] == "playing"

    # Once that table has started, asking again opens another one.
    later = client.post(f"{url}/rematch", headers=rest.auth(ana)).json()
    assert later["id"] not in (table_id, new["id"]) and later["seats"][0]["name"] == "Ana"


def test_the_rematch_of_a_player_alone_with_bots_starts_at_once(
        client: TestClient, rest: Rest) -> None:
    """Play now's rematch (issue #35): nobody to wait for, no "Start the match" to press."""
    ana = rest.guest("Ana")
    table_id = rest.table(ana, [ana, "easy", "easy", "easy"], options={"target_score": 1})
    url = f"/api/tables/{table_id}"
    with seated(client, table_id, ana) as (ws_ana, _):
        rest.start(table_id, ana)
        over = play_to_the_end(ws_ana, 0, until(ws_ana, lambda m: m["type"] == "event"))
        assert over["table"]["status"] == "over"
    new = client.post(f"{url}/rematch", headers=rest.auth(ana)).json()
    assert new["status"] == "playing", new
    assert [s["kind"] for s in new["seats"]] == ["human", "bot", "bot", "bot"]
