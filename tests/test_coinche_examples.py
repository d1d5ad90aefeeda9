"""Every worked example of COINCHE.md §11 (docs/COINCHE.md): single deals scored from their
summaries (§10.4), auctions replayed from records (§10.2), legal cards, match ends.  The
tables are written out here, not parsed from the document; one test checks that they are
the document's rows, all 91 of them."""

from __future__ import annotations

import json
import random
import re
from pathlib import Path
from typing import Any

import pytest

from engine import Match, Options, RecordError, replay
from engine.actions import STRAIN_NAMES, action_name
from engine.cards import mask_of, names, parse_card
from engine.deal import legal_cards, trick_state
from engine.record import legal_report, replay_report, write_record
from engine.scoring import DealResult, MatchProgress
from engine.summary import score_summary, summary_report
from tests.strategies import run_engine

DECK = " ".join(f"{r}{s}" for s in "CDHS" for r in "789TJQKA")


def rules(spec: str) -> Options:
    """``preset+flag=value+...`` as the examples write options."""
    preset, *overrides = spec.split("+")
    flags: dict[str, Any] = {}
    for item in overrides:
        name, text = item.split("=")
        flags[name] = {"true": True, "false": False}.get(text, int(text) if text.isdigit()
                                                          else text)
    return Options.make("coinche", preset=preset, **flags)


def summary(spec: str, contract: str, b: int, c: int, cp: str, bel: str, decl: str,
            capot: str) -> dict[str, Any]:
    options = rules(spec).changed()
    teams = [[] if t.strip() == "–" else t.split() for t in decl.split(";")] \
        if decl != "–" else [[], []]
    return {"variant": "coinche", "options": options, "contract": contract, "bidder_team": b,
            "coinche": c, "card_points": [int(x) for x in cp.split("/")],
            "belot": [int(x) for x in bel.split("/")], "declarations": teams,
            "capot": None if capot == "–" else int(capot[1]),
            "declarer_all_tricks": capot.endswith("*")}


# §11.1: id, options, contract, B, c, cp, bel, decl, capot, outcome, score
DEALS = [
    ("S1", "default", "80H", 0, 0, "92/70", "0/0", "–", "–", "made", "170/70"),
    ("S2", "default", "100S", 0, 0, "95/67", "0/0", "–", "–", "failed", "0/260"),
    ("S3", "default", "100S", 0, 0, "82/80", "1/0", "–", "–", "made", "200/80"),
    ("S4", "default+belote_counts_for_contract=false", "100S", 0, 0, "82/80", "1/0", "–", "–",
     "failed", "20/260"),
    ("S5", "default", "130C", 1, 0, "60/102", "0/1", "–", "–", "failed", "290/20"),
    ("S6", "ffb_contree", "130C", 1, 0, "60/102", "0/1", "–", "–", "failed", "310/0"),
    ("S7", "default", "80D", 0, 1, "100/62", "0/0", "–", "–", "made", "480/0"),
    ("S8", "default", "80D", 0, 1, "75/87", "0/0", "–", "–", "failed", "0/480"),
    ("S9", "default", "90H", 1, 2, "40/122", "0/0", "–", "–", "made", "0/1000"),
    ("S10", "default+surcoinche_multiplier=3", "90H", 1, 2, "40/122", "0/0", "–", "–", "made",
     "0/750"),
    ("S11", "pagat", "100H", 0, 1, "110/52", "0/0", "–", "–", "made", "360/0"),
    ("S12", "pagat", "80S", 0, 0, "81/81", "0/0", "–", "–", "failed", "0/240"),
    ("S13", "default", "80S", 0, 0, "81/81", "0/0", "–", "–", "made", "160/80"),
    ("S14", "ffb_coinche", "80S", 0, 0, "81/81", "0/0", "–", "–", "failed", "0/240"),
    ("S15", "default", "80H", 0, 0, "85/77", "0/0", "–", "–", "made", "170/80"),
    ("S16", "default+rounding=nearest_6_up", "80H", 0, 0, "85/77", "0/0", "–", "–", "made",
     "160/80"),
    ("S17", "default", "90H", 0, 0, "89/73", "0/0", "–", "–", "failed", "0/250"),
    ("S18", "default", "capotS", 0, 0, "252/0", "1/0", "–", "T0", "made", "520/0"),
    ("S19", "default", "capotS", 0, 0, "152/10", "0/0", "–", "–", "failed", "0/500"),
    ("S20", "default", "capotH", 1, 1, "0/252", "0/0", "–", "T1", "made", "0/1000"),
    ("S21", "default", "80C", 0, 0, "252/0", "0/0", "–", "T0", "made", "330/0"),
    ("S22", "default+unannounced_capot_bonus=false", "80C", 0, 0, "162/0", "0/0", "–", "T0",
     "made", "240/0"),
    ("S23", "default", "120D", 0, 0, "0/252", "0/0", "–", "T1", "failed", "0/280"),
    ("S24", "default", "80C", 0, 1, "252/0", "0/0", "–", "T0", "made", "660/0"),
    ("S25", "colver", "80S", 0, 1, "100/62", "0/0", "–", "–", "made", "322/0"),
    ("S26", "colver", "100S", 0, 0, "88/74", "1/0", "–", "–", "made", "208/74"),
    ("S27", "colver", "100S", 0, 0, "82/80", "0/0", "–", "–", "failed", "0/262"),
    ("S28", "colver", "capotS", 0, 0, "252/0", "0/0", "–", "T0", "made", "502/0"),
    ("S29", "colver", "capotS", 0, 2, "252/0", "0/0", "–", "T0", "made", "1002/0"),
    ("S30", "colver", "capotS", 0, 0, "152/10", "0/0", "–", "–", "failed", "0/412"),
    ("S31", "club_simple", "100H", 0, 0, "120/42", "0/1", "–", "–", "made", "100/20"),
    ("S32", "club_simple", "100H", 0, 1, "90/72", "0/0", "–", "–", "failed", "0/200"),
    ("S33", "bga_coinche", "100C", 0, 0, "122/40", "0/0", "–", "–", "made", "222/40"),
    ("S34", "bga_coinche", "100C", 0, 0, "96/66", "0/0", "–", "–", "failed", "0/262"),
    ("S35", "default+scoring=fixed_160", "100H", 0, 0, "110/52", "0/0", "–", "–", "made",
     "110/50"),
    ("S36", "default+scoring=fixed_160", "100H", 0, 0, "90/72", "0/0", "–", "–", "failed",
     "0/160"),
    ("S37", "default+scoring=fixed_160", "100H", 0, 1, "110/52", "0/0", "–", "–", "made",
     "320/0"),
    ("S38", "ffb_coinche", "100H", 0, 0, "83/79", "0/0", "tierce ; –", "–", "made", "200/80"),
    ("S39", "ffb_coinche", "100H", 0, 0, "95/67", "0/0", "– ; quarte", "–", "failed", "0/310"),
    ("S40", "ffb_coinche", "90S", 0, 0, "92/70", "0/0", "– ; carre-J", "–", "failed",
     "0/450"),
    ("S41", "default+allow_ta=true", "120TA", 1, 0, "70/92", "0/2", "–", "–", "made",
     "70/250"),
    ("S42", "default+allow_sa=true", "100SA", 0, 0, "105/57", "0/0", "–", "–", "made",
     "210/60"),
    ("S43", "default+generale=true", "generaleS", 0, 0, "252/0", "0/0", "–", "T0*", "made",
     "500/0"),
    ("S44", "default+generale=true", "generaleS", 0, 0, "252/0", "0/0", "–", "T0", "failed",
     "0/500"),
    ("S45", "default", "160H", 1, 0, "10/152", "0/1", "–", "–", "made", "10/330"),
    ("S46", "default", "90C", 0, 0, "95/67", "0/0", "–", "–", "made", "190/70"),
    ("S47", "ffb_contree", "100S", 0, 1, "75/87", "1/0", "–", "–", "failed", "0/540"),
]


@pytest.mark.parametrize("row", DEALS, ids=[row[0] for row in DEALS])
def test_single_deal(row: tuple[Any, ...]) -> None:
    _, spec, contract, b, c, cp, bel, decl, capot, outcome, score = row
    doc = summary(spec, contract, b, c, cp, bel, decl, capot)
    report = summary_report(doc)
    assert (report["outcome"], report["score"]) == (outcome, [int(x) for x in score.split("/")])
    assert report["contract"] == contract and report["bidder"] is None
    assert "totals" not in report
    assert report["card_points"] == doc["card_points"]


# §11.2: id, options, dealer, calls, result ("80H 1 1": contract, seat, multiplier)
AUCTIONS = [
    ("A1", "default", 3, "0:pass 1:80H 2:pass 3:pass 0:pass", "80H 1 1"),
    ("A2", "default", 3, "0:80S 1:coinche 2:surcoinche", "80S 0 4"),
    ("A3", "default", 0, "1:pass 2:pass 3:pass 0:pass", "redeal"),
    ("A4", "default", 3, "0:pass 1:80D 2:pass 3:pass 0:90S 1:pass 2:pass 3:pass", "90S 0 1"),
    ("A5", "default", 3, "0:90C 1:100H 2:110C 3:pass 0:150H 1:pass 2:pass 3:pass", "150H 0 1"),
    ("A6", "default", 3, "0:80H 1:80S", "illegal 1"),
    ("A7", "default", 3, "0:80H 1:pass 2:coinche", "illegal 2"),
    ("A8", "default", 3, "0:80H 1:coinche 2:90H", "illegal 2"),
    ("A9", "default+overbid_after_coinche=true", 3, "0:80H 1:coinche 2:90H 3:pass 0:pass 1:pass",
     "90H 2 1"),
    ("A10", "default", 3, "0:80H 1:coinche 2:pass 3:pass 0:pass", "80H 0 2"),
    ("A11", "default", 3, "0:capotH 1:160S", "illegal 1"),
    ("A12", "default+generale=true", 3, "0:capotH 1:generaleS 2:pass 3:pass 0:pass",
     "generaleS 1 1"),
    ("A13", "default+coinche_timing=any_time", 3, "0:100C 3:coinche 0:surcoinche", "100C 0 4"),
    ("A14", "default", 3, "0:100C 3:coinche", "illegal 1"),
    ("A15", "default", 3, "0:80SA", "illegal 0"),
    ("A16", "default+allow_sa=true+allow_ta=true", 3, "0:80SA 1:90TA 2:pass 3:pass 0:pass",
     "90TA 1 1"),
    ("A17", "default", 3, "0:80H 1:pass 2:pass 3:pass 0:90H", "illegal 4"),
    ("A18", "default", 3, "0:80H 1:coinche 2:pass 3:surcoinche", "illegal 3"),
    ("A19", "default", 3, "0:80H 1:pass 2:pass 3:coinche 0:surcoinche", "80H 0 4"),
    ("A20", "default", 3, "0:80H 1:coinche 2:pass 3:pass 0:pass 2:surcoinche", "illegal 5"),
]


def auction_record(spec: str, dealer: int, calls: str) -> dict[str, Any]:
    actions = [{"seat": int(s), "bid": b} for s, b in (c.split(":") for c in calls.split())]
    record: dict[str, Any] = {"format": "belote-record/1", "variant": "coinche",
                              "deals": [{"dealer": dealer, "deck": DECK, "actions": actions}]}
    if options := rules(spec).changed():
        record["options"] = options
    return record


@pytest.mark.parametrize("row", AUCTIONS, ids=[row[0] for row in AUCTIONS])
def test_auction(row: tuple[Any, ...]) -> None:
    _, spec, dealer, calls, result = row
    record = auction_record(spec, dealer, calls)
    if result.startswith("illegal"):
        with pytest.raises(RecordError) as refused:
            replay(record)
        assert (refused.value.deal, refused.value.action) == (0, int(result.split()[1]))
        return
    deal = replay(record).deals[0]
    if result == "redeal":
        assert deal.thrown_in
        return
    contract, seat, multiplier = result.split()
    assert deal.phase == "play"
    assert (action_name(deal.bid), deal.declarer, deal.multiplier) == \
        (contract, int(seat), int(multiplier))
    assert deal.to_move == (dealer + 1) % 4  # trick 1 led by the eldest, not the declarer


def _calls_after(calls: str) -> list[str]:
    match = replay(auction_record("default", 3, calls))
    return [a["bid"] for a in legal_report(match)["actions"]]


def test_legal_call_snapshots() -> None:
    """§11.2's snapshots: after 0:80H, after 0:80H 1:pass, after 0:80H 1:coinche."""
    bids = [f"{v}{s}" for v in range(90, 161, 10) for s in "CDHS"] + \
        [f"capot{s}" for s in "CDHS"]
    assert _calls_after("0:80H") == [*bids, "pass", "coinche"]
    assert _calls_after("0:80H 1:pass") == [*bids, "pass"]
    assert _calls_after("0:80H 1:coinche") == ["pass", "surcoinche"]
    assert _calls_after("0:80H 1:coinche 2:pass") == ["pass"]


# §11.3: id, options, strain, trick so far, mover: hand, legal
LEGAL = [
    ("L1", "default", "H", "0:AS 1:8H 2:7S", "3: 9H 7H KD AC", "AC KD 9H"),
    ("L2", "ffb_contree", "H", "0:AS 1:8H 2:7S", "3: 9H 7H KD AC", "AC KD 7H 9H"),
    ("L3", "default", "H", "0:AS 1:JH", "2: 7H KD AC", "7H"),
    ("L4", "ffb_contree", "H", "0:AS 1:JH", "2: 7H KD AC", "AC KD 7H"),
    ("L5", "default", "H", "0:AS 1:TH", "2: AH 7H KD", "AH"),
    ("L6", "ffb_contree", "H", "0:9H 1:7H", "2: JH AH KS", "JH"),
    ("L7", "default", "H", "0:TD 1:AD", "2: 7H JH KS AC", "7H JH"),
    ("L8", "default", "H", "0:AD 1:7D", "2: 7H JH KS AC", "AC 7H JH KS"),
    ("L9", "default", "H", "0:TD", "1: 7D KD 9H", "7D KD"),
    ("L10", "default", "SA", "0:AD", "1: 7D KD JS", "7D KD"),
    ("L11", "default", "SA", "0:AD 1:7D", "2: QH JS", "QH JS"),
    ("L12", "default", "TA", "0:TC 1:JC", "2: 9C AC 8C KH", "8C 9C AC"),
    ("L13", "default", "TA", "0:TC 1:KC", "2: AC QC JD", "AC"),
    ("L14", "default", "TA", "0:TC 1:KC", "2: KH QH JD", "JD QH KH"),
    ("L15", "default", "TA", "0:9C", "1: JC 7C AH", "JC"),
    ("L16", "default", "H", "0:KS 1:9H 2:JH", "3: AH 8H QD", "8H AH"),
]


@pytest.mark.parametrize("row", LEGAL, ids=[row[0] for row in LEGAL])
def test_legal_cards(row: tuple[Any, ...]) -> None:
    _, spec, strain, so_far, to_move, legal = row
    options = rules(spec)
    contract = STRAIN_NAMES.index(strain)
    played = [(int(s), parse_card(c)) for s, c in (p.split(":") for p in so_far.split())]
    seat_text, hand_text = to_move.split(":")
    seat, hand = int(seat_text), mask_of([parse_card(c) for c in hand_text.split()])
    trick = [card for _, card in played]
    win_seat, win_card, _ = trick_state(trick, played[0][0], contract)
    mask = legal_cards(hand, trick, win_card, (win_seat - seat) & 1 == 0, contract, options)
    assert names(mask) == legal


# §11.4: id, options, totals before, the deal's summary (contract, B, c, cp), its score,
# the winner (None: play on)
ENDS = [
    ("E1", "default", (900, 850), ("80H", 0, 0, "92/70"), (170, 70), 0),
    ("E2", "default", (950, 960), ("80S", 0, 0, "81/81"), (160, 80), 0),
    ("E2-contract_winner", "default+both_over_target=contract_winner", (950, 960),
     ("80S", 0, 0, "81/81"), (160, 80), 0),
    ("E3", "default", (930, 980), ("80S", 0, 0, "75/87"), (0, 240), 1),
    ("E4", "default", (840, 930), ("80H", 0, 0, "85/77"), (170, 80), None),
    ("E5", "bga_coinche", (1778, 1500), ("100C", 0, 0, "122/40"), (222, 40), None),
    ("E5-reach", "bga_coinche+end_rule=reach", (1778, 1500), ("100C", 0, 0, "122/40"),
     (222, 40), 0),
    ("E6", "default", (990, 900), ("80H", 1, 1, "92/70"), (480, 0), 0),
    ("E7", "default", (960, 990), ("80C", 1, 0, "70/92"), (70, 170), 1),
    ("E7-contract_winner", "default+both_over_target=contract_winner", (960, 990),
     ("80C", 1, 0, "70/92"), (70, 170), 1),
    ("E8", "default", (990, 840), ("80C", 1, 0, "75/87"), (80, 170), 0),
    ("E8-contract_winner", "default+both_over_target=contract_winner", (990, 840),
     ("80C", 1, 0, "75/87"), (80, 170), 1),
]


@pytest.mark.parametrize("row", ENDS, ids=[row[0] for row in ENDS])
def test_match_end(row: tuple[Any, ...]) -> None:
    _, spec, before, (contract, b, c, cp), score, winner = row
    options = rules(spec)
    result = score_summary(summary(spec, contract, b, c, cp, "0/0", "–", "–"))
    assert result.score == score
    played = DealResult(**{**{f: getattr(result, f) for f in result.__slots__}, "bidder": b})
    progress = options.after_deal(MatchProgress(before, options.target_score, None), played)
    assert progress.winner == winner
    assert progress.totals == (before[0] + score[0], before[1] + score[1])


def test_a_redeal_never_ends_the_match() -> None:
    options = rules("default")
    progress = options.after_deal(MatchProgress((1200, 900), 1000, None), DealResult("redeal"))
    assert progress.winner is None


def test_a_record_may_hold_any_positive_target() -> None:
    """§8: any positive integer (a room's own limit is the server's: Options.for_room)."""
    assert replay(auction_record("default+target_score=20000", 3, "0:80H")).options \
        .target_score == 20000
    with pytest.raises(ValueError, match="from 1 to 10000, not 20000"):
        Options.for_room("coinche", target_score=20000)
    for bad in (0, -5, "2000", 2000.0):
        record = auction_record("default", 3, "0:80H") | {"options": {"target_score": bad}}
        with pytest.raises(RecordError, match=r"deal 0, action 0: .*positive integer"):
            replay(record)


def test_a_whole_match_replays_with_its_totals() -> None:
    """The replay report of §10.3: running totals per deal, the contract's parts."""
    match = Match(rules("ffb_contree"), seed=4)
    rng = random.Random(4)
    while not match.is_over:
        match.apply_action(rng.choice(match.legal_actions()))
    record = write_record(match)
    assert record["options"]["preset"] == "ffb_contree"
    report = replay_report(replay(record))
    assert report["totals"] == list(match.totals) == report["deals"][-1]["totals"]
    for deal in report["deals"]:
        assert set(deal) == {"outcome", "contract", "value", "trump", "bidder", "multiplier",
                             "card_points", "declarations", "belot", "capot", "score",
                             "totals"}
        if deal["outcome"] != "redeal":
            assert sum(deal["card_points"]) in (162, 252)
            assert deal["contract"] == f"{deal['value']}{deal['trump']}".replace(
                "250", "capot").replace("500", "generale")


def test_the_tools_take_coinche_records_and_summaries() -> None:
    """``python -m engine replay --legal`` lists who may coinche out of turn;
    ``score`` prints §10.4's object; a refused call exits 1 at its place."""
    record = auction_record("default+coinche_timing=any_time", 3, "0:100C")
    done = run_engine("replay", "--legal", "-", stdin=json.dumps(record))
    assert done.returncode == 0, done.stderr
    legal = json.loads(done.stdout)
    assert (legal["seat"], legal["coinche_out_of_turn"]) == (1, [3])
    assert legal["actions"][0] == {"bid": "110C"} and legal["actions"][-2:] == [
        {"bid": "pass"}, {"bid": "coinche"}]
    done = run_engine("replay", "-", stdin=json.dumps(auction_record("default", 3, "0:80SA")))
    assert done.returncode == 1 and done.stderr.startswith("deal 0, action 0: ")
    doc = {"variant": "coinche", "options": {"preset": "ffb_contree"}, "contract": "100S",
           "bidder_team": 0, "coinche": 1, "card_points": [95, 67], "belot": [1, 0],
           "declarations": [[], []], "capot": None, "declarer_all_tricks": False}
    done = run_engine("score", "-", stdin=json.dumps(doc))
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == {
        "outcome": "made", "contract": "100S", "value": 100, "trump": "S", "bidder": None,
        "multiplier": 2, "card_points": [95, 67], "declarations": [0, 0], "belot": [20, 0],
        "capot": None, "score": [540, 0]}
    for bad, reason in ((doc | {"card_points": [95, 66]}, "add up to 162"),
                        (doc | {"contract": "100SA"}, "contract must be"),
                        (doc | {"belot": [1, 1]}, "at most 1 belote"),
                        (doc | {"declarations": [["tierce"], []]}, "no announcements"),
                        (doc | {"capot": 0}, "took every trick")):
        done = run_engine("score", "-", stdin=json.dumps(bad))
        assert done.returncode == 1 and reason in done.stderr, (bad, done.stderr)


def _worked() -> str:
    """docs/COINCHE.md §11, the worked examples."""
    text = (Path(__file__).parents[1] / "docs" / "COINCHE.md").read_text(encoding="utf-8")
    return text[text.index("## 11. Worked examples"):text.index("## 12.")]


def _document_rows(prefix: str) -> dict[str, list[str]]:
    """§11's table rows whose number starts with ``prefix``: id -> its cells, bold off."""
    rows = {}
    for line in _worked().splitlines():
        cells = [re.sub(r"^\*\*(.*)\*\*$", r"\1", c.strip())
                 for c in line.strip().strip("|").split("|")]
        if line.startswith("|") and re.fullmatch(rf"{prefix}\d+", cells[0]):
            rows[cells[0]] = cells[1:]
    return rows


def _result(cell: str) -> str:
    """§11.2's result as AUCTIONS writes it: ``80H by 1 ×1`` -> ``80H 1 1``."""
    if cell.startswith("illegal @"):
        return f"illegal {cell.removeprefix('illegal @')}"
    return cell.replace(" by ", " ").replace("×", "")


def test_the_tables_here_are_the_document_s_every_row() -> None:
    """The 91 worked examples of docs/COINCHE.md §11 (47 deals, 20 auctions, 16 legal
    sets, 8 match ends), each written out above as the document has it."""
    deals = {r[0]: [r[1], r[2], str(r[3]), str(r[4]), r[5], r[6], r[7], r[8], r[9], r[10]]
             for r in DEALS}
    auctions = {r[0]: [r[1], str(r[2]), r[3], r[4]] for r in AUCTIONS}
    legal = {r[0]: list(r[1:]) for r in LEGAL}
    assert deals == _document_rows("S")
    assert auctions == {k: [*v[:3], _result(v[3])] for k, v in _document_rows("A").items()}
    assert legal == _document_rows("L")
    ends = re.findall(r"^\* \*\*(E\d+)\*\*", _worked(), re.MULTILINE)
    assert ends == sorted({row[0].split("-")[0] for row in ENDS}, key=lambda e: int(e[1:]))
    assert len(deals) + len(auctions) + len(legal) + len(ends) == 91
