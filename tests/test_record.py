"""Faulty and borderline match records (RECORD.md): where replay stops and why.

Each faulty record is checked twice: in-process (``engine.record.replay`` raises
``RecordError`` with the deal and action index) and through ``python -m engine replay``
(exit status 1, nothing on stdout, exactly one line on stderr that starts with
``deal D, action A: ``).  The records are variations of RECORD.md's example, whose deal is
(dealer 2; clubs by seat 0):

    seat 0: 9C TC JC 8H JH QH KH QS      seat 1: 8D 9D TD KD AD 7H 7S 8S
    seat 2: 8C QC KC AC 7D 9H 9S AS      seat 3: 7C JD QD TH AH TS JS KS
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from engine.match import Match
from engine.options import Options
from engine.record import RecordError, replay, write_record
from tests.strategies import example_record, play_random_match, run_engine, write_json

Doc = dict[str, Any]
CARDS = [r + s for s in "CDHS" for r in "789TJQKA"]


def actions(doc: Doc, deal: int = 0) -> list[dict[str, Any]]:
    result: list[dict[str, Any]] = doc["deals"][deal]["actions"]
    return result


def gathered(doc: Doc, deal: int) -> list[str]:
    """The cards of a played deal picked up trick by trick, each in play order (RECORD.md)."""
    return [a["card"] for a in actions(doc, deal) if "card" in a]


def cut(cards: list[str], k: int) -> str:
    return " ".join(cards[k:] + cards[:k])


def second_deal(doc: Doc, deck: str, dealer: int = 3, moves: list[Any] | None = None) -> Doc:
    doc["deals"].append({"dealer": dealer, "deck": deck, "actions": moves or []})
    return doc


# --------------------------------------------------------------------- the faults


def illegal_card(doc: Doc) -> Doc:
    actions(doc)[11]["card"] = "7S"  # JD led, seat 1 holds diamonds
    return doc


def card_not_held(doc: Doc) -> Doc:
    actions(doc)[9]["card"] = "9C"  # seat 0's card, played by seat 3
    return doc


def out_of_turn(doc: Doc) -> Doc:
    actions(doc)[9]["seat"] = 0  # seat 3 leads the second trick
    return doc


def out_of_turn_in_auction(doc: Doc) -> Doc:
    actions(doc)[2]["seat"] = 2
    return doc


def unknown_key_in_deal(doc: Doc) -> Doc:
    doc["deals"][0]["comment"] = "nice deal"
    return doc


def unknown_key_in_card(doc: Doc) -> Doc:
    actions(doc)[20]["note"] = "x"
    return doc


def unknown_key_in_bid(doc: Doc) -> Doc:
    actions(doc)[1]["belot"] = True
    return doc


def unknown_bid(doc: Doc) -> Doc:
    actions(doc)[1]["bid"] = "clubs"
    return doc


def bid_in_play(doc: Doc) -> Doc:
    actions(doc)[5] = {"seat": 3, "bid": "pass"}
    return doc


def card_in_auction(doc: Doc) -> Doc:
    actions(doc)[0] = {"seat": 3, "card": "AH"}
    return doc


def deck_31_cards(doc: Doc) -> Doc:
    doc["deals"][0]["deck"] = " ".join(doc["deals"][0]["deck"].split()[:31])
    return doc


def deck_duplicate(doc: Doc) -> Doc:
    cards = doc["deals"][0]["deck"].split()
    cards[5] = cards[4]
    doc["deals"][0]["deck"] = " ".join(cards)
    return doc


def deck_33_cards(doc: Doc) -> Doc:
    doc["deals"][0]["deck"] += " 7C"
    return doc


def deck_bad_card(doc: Doc) -> Doc:
    doc["deals"][0]["deck"] = doc["deals"][0]["deck"].replace("KS", "1S")
    return doc


def bad_dealer(doc: Doc) -> Doc:
    doc["deals"][0]["dealer"] = 4
    return doc


def wrong_format(doc: Doc) -> Doc:
    doc["format"] = "belote-record/2"
    return doc


def missing_format(doc: Doc) -> Doc:
    del doc["format"]
    return doc


def wrong_variant(doc: Doc) -> Doc:
    doc["variant"] = "french"
    return doc


def unknown_option(doc: Doc) -> Doc:
    doc["options"] = {"target_score": 151, "no_such_flag": True}
    return doc


def option_named_variant(doc: Doc) -> Doc:
    doc["options"] = {"variant": "classic"}
    return doc


def option_of_other_variant(doc: Doc) -> Doc:
    doc["options"] = {"litige": "carry"}
    return doc


def bad_option_value(doc: Doc) -> Doc:
    doc["options"] = {"valat_blocks_win": "sometimes"}
    return doc


def bad_target_type(doc: Doc) -> Doc:
    doc["options"] = {"target_score": "151"}
    return doc


def stops_early_not_last(doc: Doc) -> Doc:
    del actions(doc)[20:]
    return second_deal(doc, " ".join(CARDS))


def stops_in_auction_not_last(doc: Doc) -> Doc:
    del actions(doc)[3:]
    return second_deal(doc, " ".join(CARDS))


def deal_after_win(doc: Doc) -> Doc:
    doc["options"] = {"target_score": 20}  # the example's 23 to 1 wins the match
    return second_deal(doc, " ".join(CARDS))


def wrong_next_dealer(doc: Doc) -> Doc:
    return second_deal(doc, " ".join(CARDS), dealer=2)


def action_after_deal_end(doc: Doc) -> Doc:
    actions(doc).append({"seat": 0, "card": "AS"})
    return doc


def same_combination_twice(doc: Doc) -> Doc:
    actions(doc)[6]["announce"] = ["9C TC JC", "9C TC JC"]
    return doc


def same_combination_again_later(doc: Doc) -> Doc:
    actions(doc)[10]["announce"] = ["9C TC JC"]  # seat 0's second card
    return doc


def combination_not_held(doc: Doc) -> Doc:
    actions(doc)[7]["announce"] = ["QC KC AC"]  # seat 2's tierce, announced by seat 1
    return doc


def combination_not_a_combination(doc: Doc) -> Doc:
    actions(doc)[7]["announce"] = ["8D 9D KD"]
    return doc


def belot_on_second_card(doc: Doc) -> Doc:
    actions(doc)[21]["belot"] = True  # QC after KC already carried the belot
    return doc


def belot_without_pair(doc: Doc) -> Doc:
    actions(doc)[10]["belot"] = True  # 9C
    return doc


def announce_not_a_list(doc: Doc) -> Doc:
    actions(doc)[8]["announce"] = "QC KC AC"
    return doc


def belot_not_bool(doc: Doc) -> Doc:
    actions(doc)[15]["belot"] = "yes"
    return doc


Fault = Callable[[Doc], Doc]
FAULTS: list[tuple[Fault, int, int, str | None]] = [
    (illegal_card, 0, 11, "must follow suit"),
    (card_not_held, 0, 9, None),
    (out_of_turn, 0, 9, None),
    (out_of_turn_in_auction, 0, 2, None),
    (unknown_key_in_deal, 0, 0, "comment"),
    (unknown_key_in_card, 0, 20, "note"),
    (unknown_key_in_bid, 0, 1, "belot"),
    (unknown_bid, 0, 1, None),
    (bid_in_play, 0, 5, None),
    (card_in_auction, 0, 0, None),
    (deck_31_cards, 0, 0, None),
    (deck_duplicate, 0, 0, None),
    (deck_33_cards, 0, 0, None),
    (deck_bad_card, 0, 0, None),
    (bad_dealer, 0, 0, None),
    (wrong_format, 0, 0, None),
    (missing_format, 0, 0, None),
    (wrong_variant, 0, 0, None),
    (unknown_option, 0, 0, None),
    (option_named_variant, 0, 0, "unknown option 'variant'"),
    (option_of_other_variant, 0, 0, None),
    (bad_option_value, 0, 0, None),
    (bad_target_type, 0, 0, None),
    (stops_early_not_last, 0, 20, None),
    (stops_in_auction_not_last, 0, 3, None),
    (deal_after_win, 1, 0, None),
    (wrong_next_dealer, 1, 0, None),
    (action_after_deal_end, 0, 37, None),
    (same_combination_twice, 0, 6, None),
    (same_combination_again_later, 0, 10, None),
    (combination_not_held, 0, 7, None),
    (combination_not_a_combination, 0, 7, None),
    (belot_on_second_card, 0, 21, None),
    (belot_without_pair, 0, 10, None),
    (announce_not_a_list, 0, 8, None),
    (belot_not_bool, 0, 15, None),
]


@pytest.mark.parametrize(("fault", "deal", "action", "reason"), FAULTS,
                         ids=[f[0].__name__ for f in FAULTS])
def test_fault_in_process(fault: Fault, deal: int, action: int, reason: str | None) -> None:
    with pytest.raises(RecordError) as info:
        replay(fault(example_record()))
    assert (info.value.deal, info.value.action) == (deal, action), str(info.value)
    assert str(info.value).startswith(f"deal {deal}, action {action}: ")
    if reason is not None:
        assert reason in info.value.reason


@pytest.mark.parametrize(("fault", "deal", "action", "reason"), FAULTS,
                         ids=[f[0].__name__ for f in FAULTS])
def test_fault_cli(
    tmp_path: Path, fault: Fault, deal: int, action: int, reason: str | None
) -> None:
    path = write_json(tmp_path, "faulty.json", fault(example_record()))
    legal = fault in (illegal_card, stops_early_not_last, wrong_format, deal_after_win)
    for extra in ([], ["--legal"]) if legal else ([],):
        result = run_engine("replay", str(path), *extra)
        assert result.returncode == 1
        assert result.stdout == ""
        lines = result.stderr.splitlines()
        assert len(lines) == 1, result.stderr
        assert lines[0].startswith(f"deal {deal}, action {action}: "), lines[0]
        assert len(lines[0]) > len(f"deal {deal}, action {action}: ")
        if reason is not None:
            assert reason in lines[0]


def test_example_is_valid_and_optional_parts() -> None:
    """The example replays; seats may be absent; unknown top-level keys are ignored."""
    doc = example_record()
    base = replay(doc)
    del doc["seats"]
    del doc["options"]
    doc["id"] = "abc"
    doc["finished_at"] = "2024-01-01T00:00:00Z"
    again = replay(doc)
    assert [r.to_dict() for r in again.results] == [r.to_dict() for r in base.results]


def test_the_last_deal_may_stop_anywhere() -> None:
    doc = example_record()
    for n in range(len(actions(doc)) + 1):
        cut_doc = example_record()
        del actions(cut_doc)[n:]
        match = replay(cut_doc)
        assert len(match.deals) == 1
        assert len(match.deals[0].history) >= n


# --------------------------------------------------------------------- cut-only mode


def cut_only_example() -> Doc:
    doc = example_record()
    doc["options"] = {"reshuffle_each_deal": False}
    return doc


@pytest.mark.parametrize("k", range(32))
def test_cut_only_deck_is_gathered_then_cut(k: int) -> None:
    doc = cut_only_example()
    second_deal(doc, cut(gathered(doc, 0), k))
    if 3 <= k <= 29:
        match = replay(doc)
        assert len(match.deals) == 2
    else:
        with pytest.raises(RecordError) as info:
            replay(doc)
        assert (info.value.deal, info.value.action) == (1, 0)


def test_cut_only_refuses_other_decks() -> None:
    doc = cut_only_example()
    played = gathered(doc, 0)
    rng = random.Random(7)
    for _ in range(20):
        deck = list(played)
        rng.shuffle(deck)
        if any(deck == played[k:] + played[:k] for k in range(32)):
            continue
        with pytest.raises(RecordError) as info:
            replay(second_deal(cut_only_example(), " ".join(deck)))
        assert (info.value.deal, info.value.action) == (1, 0)
    # the previous deck cut (right after a played deal) is not the gathered cards
    deck = doc["deals"][0]["deck"].split()
    with pytest.raises(RecordError) as info:
        replay(second_deal(cut_only_example(), cut(deck, 5)))
    assert (info.value.deal, info.value.action) == (1, 0)
    # the gathered cards in a different trick order
    reversed_tricks = [c for t in range(7, -1, -1) for c in played[4 * t:4 * t + 4]]
    with pytest.raises(RecordError):
        replay(second_deal(cut_only_example(), cut(reversed_tricks, 5)))


def test_cut_only_after_thrown_in_deal_cuts_the_previous_deck() -> None:
    doc = cut_only_example()
    deck1 = cut(gathered(doc, 0), 10)
    passes = [{"seat": s, "bid": "pass"} for s in (0, 1, 2, 3)]  # dealer 3: seat 0 first
    second_deal(doc, deck1, dealer=3, moves=passes)
    for k in range(32):
        trial = json.loads(json.dumps(doc))
        trial["deals"].append({"dealer": 0, "deck": cut(deck1.split(), k), "actions": []})
        if 3 <= k <= 29:
            match = replay(trial)
            assert match.results[1].outcome == "redeal"
        else:
            with pytest.raises(RecordError) as info:
                replay(trial)
            assert (info.value.deal, info.value.action) == (2, 0)


def test_cut_only_cli(tmp_path: Path) -> None:
    good = second_deal(cut_only_example(), cut(gathered(cut_only_example(), 0), 3))
    result = run_engine("replay", str(write_json(tmp_path, "good.json", good)))
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["deals"][1]["outcome"] == "unfinished"
    bad = second_deal(cut_only_example(), cut(gathered(cut_only_example(), 0), 2))
    result = run_engine("replay", str(write_json(tmp_path, "bad.json", bad)))
    assert result.returncode == 1
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("deal 1, action 0: ")


@pytest.mark.parametrize("variant", ["bulgarian", "classic"])
def test_cut_only_random_matches_replay(variant: str) -> None:
    """Matches played in cut-only mode write records whose decks replay as cuts."""
    for seed in range(6):
        match = play_random_match(Options.make(variant, reshuffle_each_deal=False), seed)
        doc = write_record(match)
        for i in range(1, len(doc["deals"])):
            prev = doc["deals"][i - 1]
            played = gathered(doc, i - 1) or prev["deck"].split()
            deck = doc["deals"][i]["deck"].split()
            assert any(deck == played[k:] + played[:k] for k in range(3, 30))
        assert replay(doc).totals == match.totals


def test_record_of_fresh_match() -> None:
    """A match with one deal dealt and no action yet replays to the same position."""
    match = Match(Options.make("classic"), seed=3)
    doc = json.loads(json.dumps(write_record(match)))
    again = replay(doc)
    assert again.legal_actions() == match.legal_actions()
    assert again.current_player() == match.current_player()
