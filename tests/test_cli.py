"""``python -m engine replay|score`` run as subprocesses, against RECORD.md's examples.

The expected outputs are RECORD.md's (the example record, its replay and ``--legal``
output, the score example) and RULES.md §11 vectors worked by hand.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.strategies import example_record, run_engine, write_json

# RECORD.md, "Replay": the output for the example record.
EXAMPLE_REPLAY = {
    "deals": [
        {
            "outcome": "made",
            "contract": "C", "bidder": 0, "multiplier": 1,
            "card_points": [147, 15],
            "declarations": [60, 0],
            "belot": [20, 0],
            "valat": None,
            "score": [23, 1],
            "hanging": 0,
        }
    ],
    "totals": [23, 1],
    "winner": None,
}
# RECORD.md: ``--legal`` for the example cut after its first nine actions, verbatim.
EXAMPLE_LEGAL_AFTER_NINE = (
    '{"seat": 3, "actions": [{"card": "7C"}, {"card": "JD"}, {"card": "QD"}, {"card": "TH"}, '
    '{"card": "TS"}, {"card": "JS"}, {"card": "KS"}]}'
)
NOTHING_LEGAL = '{"seat": null, "actions": []}'


def cut_record(n: int) -> dict[str, Any]:
    doc = example_record()
    doc["deals"][0]["actions"] = doc["deals"][0]["actions"][:n]
    return doc


def ok_json(result: Any) -> Any:
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""
    return json.loads(result.stdout)


# ------------------------------------------------------------------------- replay


def test_replay_example(tmp_path: Path) -> None:
    path = write_json(tmp_path, "example.json", example_record())
    assert ok_json(run_engine("replay", str(path))) == EXAMPLE_REPLAY


def test_replay_example_file_as_shipped() -> None:
    path = Path(__file__).parent / "data" / "record_example.json"
    assert ok_json(run_engine("replay", str(path))) == EXAMPLE_REPLAY


def test_replay_stdin() -> None:
    result = run_engine("replay", "-", stdin=json.dumps(example_record()))
    assert ok_json(result) == EXAMPLE_REPLAY


def test_replay_prints_one_json_document(tmp_path: Path) -> None:
    path = write_json(tmp_path, "example.json", example_record())
    out = run_engine("replay", str(path)).stdout
    decoder = json.JSONDecoder()
    _, end = decoder.raw_decode(out)
    assert out[end:].strip() == ""


def test_legal_after_first_trick(tmp_path: Path) -> None:
    path = write_json(tmp_path, "cut.json", cut_record(9))
    result = run_engine("replay", str(path), "--legal")
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == EXAMPLE_LEGAL_AFTER_NINE


def test_legal_stdin() -> None:
    result = run_engine("replay", "-", "--legal", stdin=json.dumps(cut_record(9)))
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == EXAMPLE_LEGAL_AFTER_NINE


def test_legal_when_deal_complete(tmp_path: Path) -> None:
    path = write_json(tmp_path, "full.json", example_record())
    result = run_engine("replay", str(path), "--legal")
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == NOTHING_LEGAL


def test_legal_when_match_over(tmp_path: Path) -> None:
    doc = example_record()
    doc["options"] = {"target_score": 20}  # 23 to 1 wins it
    path = write_json(tmp_path, "won.json", doc)
    assert ok_json(run_engine("replay", str(path)))["winner"] == 0
    result = run_engine("replay", str(path), "--legal")
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == NOTHING_LEGAL


@pytest.mark.parametrize(
    ("n", "expected"),
    [
        # dealer 2: seat 3 opens; after "3: pass, 0: C" seat 1 may overcall or double (§4.1)
        (2, {"seat": 1, "actions": [{"bid": b} for b in
                                    ["D", "H", "S", "NT", "AT", "pass", "double"]]}),
        (0, {"seat": 3, "actions": [{"bid": b} for b in
                                    ["C", "D", "H", "S", "NT", "AT", "pass"]]}),
        # seat 3's AH won trick one (clubs are trumps); after 3: JD, seat 0 has no diamond
        # and an opponent is winning with a plain card: it must trump (§5.2)
        (10, {"seat": 0, "actions": [{"card": c} for c in ["9C", "TC", "JC"]]}),
        # seat 3 leads trick one with any card
        (5, {"seat": 3, "actions": [{"card": c} for c in
                                    ["7C", "JD", "QD", "TH", "AH", "TS", "JS", "KS"]]}),
    ],
)
def test_legal_listing(tmp_path: Path, n: int, expected: dict[str, Any]) -> None:
    """Bids sorted C D H S NT AT pass double redouble; cards by suit then rank."""
    path = write_json(tmp_path, "cut.json", cut_record(n))
    result = run_engine("replay", str(path), "--legal")
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout) == expected


def test_replay_unfinished_deal(tmp_path: Path) -> None:
    path = write_json(tmp_path, "cut.json", cut_record(9))
    report = ok_json(run_engine("replay", str(path)))
    assert report == {
        "deals": [{
            "outcome": "unfinished", "contract": "C", "bidder": 0, "multiplier": 1,
            "card_points": [0, 0], "declarations": [0, 0], "belot": [0, 0],
            "valat": None, "score": [0, 0], "hanging": 0,
        }],
        "totals": [0, 0],
        "winner": None,
    }


def test_replay_unfinished_auction(tmp_path: Path) -> None:
    path = write_json(tmp_path, "cut.json", cut_record(2))
    deal = ok_json(run_engine("replay", str(path)))["deals"][0]
    assert deal["outcome"] == "unfinished"
    assert (deal["contract"], deal["bidder"], deal["multiplier"]) == (None, None, None)


def test_empty_announce_and_false_belot_accepted(tmp_path: Path) -> None:
    doc = example_record()
    actions = doc["deals"][0]["actions"]
    for action in actions:
        if "card" in action:
            action.setdefault("announce", [])
            action.setdefault("belot", False)
    path = write_json(tmp_path, "explicit.json", doc)
    assert ok_json(run_engine("replay", str(path))) == EXAMPLE_REPLAY


@pytest.mark.parametrize("text", ["{ not json", "", "[]", "null", '"a record"'])
def test_not_a_record(tmp_path: Path, text: str) -> None:
    path = tmp_path / "broken.json"
    path.write_text(text, encoding="utf-8")
    result = run_engine("replay", str(path))
    assert result.returncode == 1
    assert result.stdout == ""
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("deal 0, action 0: ")


# ------------------------------------------------------------------------- score

RECORD_MD_SUMMARY = {
    "variant": "bulgarian",
    "contract": "AT", "bidder_team": 1, "multiplier": 2,
    "card_points": [84, 174],
    "declarations": [[], ["quarte", "carre-J"]],
    "belot": [0, 1],
    "valat": None,
    "carry_in": 0,
}

# (summary, expected per-deal object without "bidder"); worked by hand from RULES §7/§8.
SCORE_VECTORS: list[tuple[str, dict[str, Any], dict[str, Any]]] = [
    # RECORD.md: raw 84 / 174+50+200+20 = 444, T = 528 -> Rt 53, doubled 106 to team 1
    ("record-md", RECORD_MD_SUMMARY, {
        "outcome": "made", "contract": "AT", "multiplier": 2, "card_points": [84, 174],
        "declarations": [0, 250], "belot": [0, 20], "valat": None, "score": [0, 106],
        "hanging": 0}),
    # RULES B13: 56+50 = 106 = 106, hanging, defenders 10, pool 11
    ("B13", {"variant": "bulgarian", "contract": "C", "bidder_team": 0,
             "card_points": [56, 106], "declarations": [["quarte"], []], "belot": [0, 0],
             "valat": None}, {
        "outcome": "hanging", "contract": "C", "multiplier": 1, "card_points": [56, 106],
        "declarations": [50, 0], "belot": [0, 0], "valat": None, "score": [0, 10],
        "hanging": 11}),
    # RULES B10: AT inside with 11 carried in: 0 / 26 + 11
    ("B10", {"variant": "bulgarian", "contract": "AT", "bidder_team": 0,
             "card_points": [110, 148], "carry_in": 11}, {
        "outcome": "failed", "contract": "AT", "multiplier": 1, "card_points": [110, 148],
        "declarations": [0, 0], "belot": [0, 0], "valat": None, "score": [0, 37],
        "hanging": 0}),
    # RULES B21: NT valat, (120+10)*2 + 90 = 350 -> 35
    ("B21", {"variant": "bulgarian", "contract": "NT", "bidder_team": 1,
             "card_points": [0, 130], "valat": 1}, {
        "outcome": "made", "contract": "NT", "multiplier": 1, "card_points": [0, 130],
        "declarations": [0, 0], "belot": [0, 0], "valat": 1, "score": [0, 35],
        "hanging": 0}),
    # RULES B23: doubled valat with belot, 272 -> 27 * 2
    ("B23", {"variant": "bulgarian", "contract": "H", "bidder_team": 0, "multiplier": 2,
             "card_points": [162, 0], "belot": [1, 0], "valat": 0}, {
        "outcome": "made", "contract": "H", "multiplier": 2, "card_points": [162, 0],
        "declarations": [0, 0], "belot": [20, 0], "valat": 0, "score": [54, 0],
        "hanging": 0}),
    # RULES B5: "164-194 -> 17-19"
    ("B5", {"variant": "bulgarian", "contract": "AT", "bidder_team": 1,
            "card_points": [164, 94], "declarations": [[], ["carre-A"]]}, {
        "outcome": "made", "contract": "AT", "multiplier": 1, "card_points": [164, 94],
        "declarations": [0, 100], "belot": [0, 0], "valat": None, "score": [17, 19],
        "hanging": 0}),
    # RULES C10: classic litige with the takers' belote: 20 / 91, 71 carried
    ("C10", {"variant": "classic", "contract": "H", "bidder_team": 0,
             "card_points": [71, 91], "belot": [1, 0]}, {
        "outcome": "hanging", "contract": "H", "multiplier": 1, "card_points": [71, 91],
        "declarations": [0, 0], "belot": [20, 0], "valat": None, "score": [20, 91],
        "hanging": 71}),
    # RULES C12: failed, the defenders' belote: 162 + 20
    ("C12", {"variant": "classic", "contract": "C", "bidder_team": 1,
             "card_points": [88, 74], "belot": [1, 0]}, {
        "outcome": "failed", "contract": "C", "multiplier": 1, "card_points": [88, 74],
        "declarations": [0, 0], "belot": [20, 0], "valat": None, "score": [182, 0],
        "hanging": 0}),
    # RULES C6: capot by the takers with belote: 252 + 20
    ("C6", {"variant": "classic", "contract": "S", "bidder_team": 1,
            "card_points": [0, 162], "belot": [0, 1], "valat": 1}, {
        "outcome": "made", "contract": "S", "multiplier": 1, "card_points": [0, 162],
        "declarations": [0, 0], "belot": [0, 20], "valat": 1, "score": [0, 272],
        "hanging": 0}),
]


@pytest.mark.parametrize(("summary", "expected"), [v[1:] for v in SCORE_VECTORS],
                         ids=[v[0] for v in SCORE_VECTORS])
def test_score(tmp_path: Path, summary: dict[str, Any], expected: dict[str, Any]) -> None:
    path = write_json(tmp_path, "summary.json", summary)
    got = ok_json(run_engine("score", str(path)))
    bidder = got.pop("bidder")
    # the summary names a team, not a seat: bidder is null or a seat of that team
    assert bidder is None or bidder % 2 == summary["bidder_team"]
    assert got == expected


def test_score_stdin() -> None:
    got = ok_json(run_engine("score", "-", stdin=json.dumps(RECORD_MD_SUMMARY)))
    assert got["score"] == [0, 106]


IMPOSSIBLE: list[tuple[str, dict[str, Any]]] = [
    ("card-points-suit", {"variant": "bulgarian", "contract": "H", "bidder_team": 0,
                          "card_points": [100, 61]}),
    ("card-points-at", {"variant": "bulgarian", "contract": "AT", "bidder_team": 0,
                        "card_points": [100, 62]}),
    ("card-points-nt", {"variant": "bulgarian", "contract": "NT", "bidder_team": 0,
                        "card_points": [100, 62]}),
    ("card-points-classic", {"variant": "classic", "contract": "S", "bidder_team": 0,
                             "card_points": [81, 80]}),
    ("declaration-in-nt", {"variant": "bulgarian", "contract": "NT", "bidder_team": 0,
                           "card_points": [70, 60], "declarations": [["tierce"], []]}),
    ("declaration-in-classic", {"variant": "classic", "contract": "S", "bidder_team": 0,
                                "card_points": [81, 81], "declarations": [["tierce"], []]}),
    ("valat-without-all-points", {"variant": "bulgarian", "contract": "S", "bidder_team": 0,
                                  "card_points": [152, 10], "valat": 0}),
    ("valat-classic-without-all-points", {"variant": "classic", "contract": "D",
                                          "bidder_team": 1, "card_points": [2, 160],
                                          "valat": 1}),
    ("contract-nt-in-classic", {"variant": "classic", "contract": "NT", "bidder_team": 0,
                                "card_points": [70, 60]}),
    ("option-named-variant", {"variant": "coinche", "options": {"variant": "classic"},
                              "contract": "80H", "bidder_team": 0, "card_points": [90, 72]}),
]


@pytest.mark.parametrize("summary", [v[1] for v in IMPOSSIBLE], ids=[v[0] for v in IMPOSSIBLE])
def test_score_impossible(tmp_path: Path, summary: dict[str, Any]) -> None:
    path = write_json(tmp_path, "summary.json", summary)
    result = run_engine("score", str(path))
    assert result.returncode == 1
    assert result.stdout == ""
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and lines[0].strip(), result.stderr
