"""Every worked example of RULES.md §11, checked through the engine's public functions.

The vectors are a copy of the rules document in ``tests/data/rules_examples.json`` (the
project never reads the shared rules folder).  A failure here means the engine and the
rules disagree; the fix belongs in the engine, not in the expected values.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from engine import errors
from engine.actions import ANNOUNCE, BELOT, BID, Action, action_name, parse_action
from engine.cards import CONTRACT_NAMES, SUITS, mask_of, names, parse_card
from engine.deal import Deal, legal_cards
from engine.declarations import COMBOS, DeclarationRules, decompositions, parse_combo, resolve
from engine.match import Match
from engine.options import Options
from engine.scoring import DealResult, MatchProgress, Tally, after_deal, score_deal
from engine.summary import score_summary

Vector = dict[str, Any]

DATA: dict[str, Any] = json.loads(
    (Path(__file__).parent / "data" / "rules_examples.json").read_text(encoding="utf-8")
)


def vectors(section: str) -> list[Any]:
    """One pytest parameter per vector of a section, named by its RULES id."""
    return [pytest.param(v, id=v["id"]) for v in DATA[section]["vectors"]]


BY_ID: dict[str, Vector] = {
    v["id"]: v for section in ("bulgarian_deals", "classic_deals")
    for v in DATA[section]["vectors"]
}


# ----------------------------------------------------------------- notation


def contract_of(name: str) -> int:
    return CONTRACT_NAMES.index(name)


def card_list(text: str) -> list[int]:
    return [parse_card(c) for c in text.split()]


def mask(text: str) -> int:
    return mask_of(card_list(text))


def options_of(variant: str, v: Vector) -> Options:
    """The variant's defaults plus the flags a variant note of the example sets."""
    return Options.make(variant, **v.get("options", {}))


def step(text: str) -> tuple[int, Action]:
    """``"1:KS+belot"`` -> (seat 1, the action)."""
    seat, _, what = text.partition(":")
    return int(seat), parse_action(what)


def pair(values: Any) -> tuple[int, int]:
    return int(values[0]), int(values[1])


# ----------------------------------------------------------------- single deals


def card_points(v: Vector) -> tuple[int, int]:
    """Card points as the engine counts them: tricks plus the last-trick 10."""
    cp = [int(v["cp"][0]), int(v["cp"][1])]
    cp[int(v["last"])] += 10
    return cp[0], cp[1]


def bulgarian_tally(v: Vector) -> Tally:
    return Tally(
        contract=contract_of(v["contract"]),
        bidder=int(v["bidder_team"]),  # seat 0 or 1: a seat of that team
        multiplier=int(v["multiplier"]),
        card_points=card_points(v),
        declarations=pair(v["declarations"]),
        belots=(int(v["belot"][0]) // 20, int(v["belot"][1]) // 20),
        valat=v["valat"],
    )


def classic_belots(v: Vector) -> tuple[int, int]:
    owner = v["belote"]
    return int(owner == 0), int(owner == 1)


def classic_tally(v: Vector) -> Tally:
    return Tally(
        contract=contract_of(v["contract"]),
        bidder=int(v["takers"]),
        multiplier=1,
        card_points=card_points(v),
        declarations=(0, 0),
        belots=classic_belots(v),
        valat=v["capot"],
    )


def assert_result(result: DealResult, v: Vector) -> None:
    got = (result.outcome, result.score, result.hanging)
    want = (v["outcome"], pair(v["score"]), int(v["hanging"]))
    assert got == want, f"{v['id']}: (outcome, score, hanging) {got} != RULES {want}"


@pytest.mark.parametrize("v", vectors("bulgarian_deals"))
def test_bulgarian_deal_score(v: Vector) -> None:
    """§11.1 through scoring.score_deal: rounding, inside, hanging, doubling, valat."""
    result = score_deal(bulgarian_tally(v), int(v["carry_in"]), options_of("bulgarian", v))
    assert_result(result, v)


@pytest.mark.parametrize("v", vectors("bulgarian_deals"))
def test_bulgarian_deal_summary(v: Vector) -> None:
    """§11.1 through the ``python -m engine score`` summary, declarations named by kind."""
    doc: dict[str, Any] = {
        "variant": "bulgarian",
        "contract": v["contract"],
        "bidder_team": v["bidder_team"],
        "multiplier": v["multiplier"],
        "card_points": list(card_points(v)),
        "declarations": v.get("declared", [[], []]),
        "belot": [int(v["belot"][0]) // 20, int(v["belot"][1]) // 20],
        "valat": v["valat"],
        "carry_in": v["carry_in"],
    }
    if "options" in v:
        doc["options"] = v["options"]
    result = score_summary(doc)
    assert_result(result, v)
    assert result.declarations == pair(v["declarations"])
    assert result.belot == pair(v["belot"])


@pytest.mark.parametrize("v", vectors("classic_deals"))
def test_classic_deal_score(v: Vector) -> None:
    """§11.6 through scoring.score_deal: no rounding, dedans, litige, capot, belote."""
    result = score_deal(classic_tally(v), int(v["carry_in"]), options_of("classic", v))
    assert_result(result, v)


@pytest.mark.parametrize("v", vectors("classic_deals"))
def test_classic_deal_summary(v: Vector) -> None:
    """§11.6 through the ``python -m engine score`` summary."""
    doc: dict[str, Any] = {
        "variant": "classic",
        "contract": v["contract"],
        "bidder_team": v["takers"],
        "card_points": list(card_points(v)),
        "belot": list(classic_belots(v)),
        "valat": v["capot"],
        "carry_in": v["carry_in"],
    }
    if "options" in v:
        doc["options"] = v["options"]
    assert_result(score_summary(doc), v)


# ----------------------------------------------------------------- sequences of deals


def sequence_result(deal: Vector, pool: int, options: Options) -> DealResult:
    """One deal of an M/CM sequence, scored with the pool carried in from the last one."""
    if deal.get("redeal"):
        return DealResult("redeal", hanging=pool)
    if "ref" in deal:
        ref = BY_ID[deal["ref"]]
        tally = classic_tally(ref) if options.variant == "classic" else bulgarian_tally(ref)
    else:
        tally = Tally(contract_of(deal["contract"]), int(deal["bidder_team"]),
                      int(deal.get("multiplier", 1)), pair(deal["card_points"]),
                      (0, 0), (0, 0), None)
    return score_deal(tally, pool, options)


@pytest.mark.parametrize("v", vectors("sequences"))
def test_match_sequence(v: Vector) -> None:
    """§11.2 and §11.7: hanging pool, valat and the end of the match, deal after deal."""
    options = options_of(v["variant"], v)
    start = v["start"]
    progress = MatchProgress(pair(start["totals"]), int(start["target"]), None)
    pool = int(start["pool"])
    for i, s in enumerate(v["steps"], 1):
        result = sequence_result(s["deal"], pool, options)
        progress = after_deal(progress, result, options)
        pool = result.hanging
        want = s["after"]
        got = (result.score, progress.totals, pool, progress.target, progress.winner)
        expected = (pair(want["score"]), pair(want["totals"]), int(want["pool"]),
                    int(want["target"]), want["winner"])
        assert got == expected, (
            f"{v['id']} step {i}: (score, totals, pool, target, winner) {got} != RULES {expected}")


# ----------------------------------------------------------------- declarations


def declaration_rules(v: Vector) -> DeclarationRules:
    """How declarations score under a bulgarian example's flags (in a suit contract)."""
    rules = options_of("bulgarian", v).declarations_in(contract_of("S"))
    assert rules is not None
    return rules


@pytest.mark.parametrize("v", vectors("decompositions"))
def test_declarable_sets(v: Vector) -> None:
    """§11.3 D1, D3–D5: the canonical declarable sets of a hand and their values."""
    rules = declaration_rules(v)
    found = decompositions(mask(v["hand"]), rules)
    values = sorted(sum(COMBOS[i].value(rules) for i in s) for s in found)
    assert values == sorted(v["values"])
    if "sets" in v:
        got_sets = {frozenset(COMBOS[i].mask for i in s) for s in found}
        want_sets = {frozenset(mask(c) for c in s) for s in v["sets"]}
        assert got_sets == want_sets
        assert len(found) == len(v["sets"])


@pytest.mark.parametrize("v", vectors("resolutions"))
def test_declaration_resolution(v: Vector) -> None:
    """§11.3 D1, D2, D6–D9: which team scores which announced combinations."""
    rules = declaration_rules(v)
    announced = [(int(seat), parse_combo(text)) for seat, text in v["announced"]]
    contract = v["contract"]
    trump = contract_of(contract) if contract in ("C", "D", "H", "S") else None
    points, scoring = resolve(announced, trump, rules)
    assert points == v["points"]
    for team in (0, 1):
        got = sorted(COMBOS[i].mask for i in scoring[team])
        want = sorted(mask(text) for text in v["scoring"][team])
        assert got == want, f"team {team} scores {[COMBOS[i].text() for i in scoring[team]]}"


# ----------------------------------------------------------------- positions from a deck


def bulgarian_deck(dealer: int, hands: dict[int, list[int]]) -> list[int]:
    """The deck that deals these hands by RULES §3.2.

    Seat ``next(d) + i`` receives deck[3i..3i+2], then deck[12+2i..13+2i], then
    deck[20+3i..22+3i]; each hand is listed in that order.
    """
    deck = [-1] * 32
    for i in range(4):
        hand = hands[(dealer + 1 + i) % 4]
        deck[3 * i:3 * i + 3] = hand[0:3]
        deck[12 + 2 * i:14 + 2 * i] = hand[3:5]
        deck[20 + 3 * i:23 + 3 * i] = hand[5:8]
    return deck


def run_steps(deal: Deal, steps: list[Any]) -> None:
    """Apply each step; a ``try`` step must be missing from legal_actions() and refused."""
    for s in steps:
        if isinstance(s, str):
            seat, action = step(s)
            assert action in deal.legal_actions(), f"{s} is not offered"
            deal.apply(action, seat)
            continue
        seat, action = step(s["try"])
        assert action not in deal.legal_actions(), f"{s['try']} is offered"
        before = len(deal.history)
        with pytest.raises(getattr(errors, s["error"])):
            deal.apply(action, seat)
        assert len(deal.history) == before


@pytest.mark.parametrize("v", vectors("belot_conditions"))
def test_belot_conditions(v: Vector) -> None:
    """§11.3 D10 and the L13 note: when the first of K and Q may carry a belot."""
    shared = DATA["belot_conditions"]["hands"]
    hands = {int(seat): card_list(text) for seat, text in v.get("hands", shared).items()}
    options = Options.make("bulgarian")
    deal = Deal(options, int(v["dealer"]), bulgarian_deck(int(v["dealer"]), hands))
    run_steps(deal, v["steps"][:4])
    assert deal.phase == "play"
    assert deal.dealt == [mask_of(hands[seat]) for seat in range(4)]
    run_steps(deal, v["steps"][4:])
    assert deal.belots == [(int(seat), SUITS.index(suit)) for seat, suit in v["belots"]]
    while deal.phase == "play":  # play the rest out with plain cards only
        deal.apply(min(a for a in deal.legal_actions() if a < BELOT))
    assert score_deal(deal.tally(), 0, options).belot == pair(v["belot_points"])


@pytest.mark.parametrize("v", vectors("full_deals"))
def test_declarations_in_a_deal(v: Vector) -> None:
    """§11.3 D1 played: each seat is offered its canonical declarations, none a belot."""
    hands = {int(seat): card_list(text) for seat, text in v["hands"].items()}
    options = Options.make("bulgarian")
    deal = Deal(options, int(v["dealer"]), bulgarian_deck(int(v["dealer"]), hands))
    run_steps(deal, v["calls"])
    for _ in range(4):  # trick 1: each seat announces everything offered, then plays
        seat = deal.to_move
        offered = [a - ANNOUNCE for a in deal.legal_actions() if a >= ANNOUNCE]
        want = v["announce"][str(seat)]
        assert sorted(COMBOS[i].mask for i in offered) == sorted(mask(t) for t in want)
        for i in offered:
            deal.apply(ANNOUNCE + i, seat)
        actions = deal.legal_actions()
        assert max(actions) < BELOT, f"offered {[action_name(a) for a in actions]}"
        deal.apply(min(actions), seat)
    assert len(deal.tricks) == 1
    while deal.phase == "play":  # the rest: no belot, no more declarations
        actions = deal.legal_actions()
        assert max(actions) < BELOT, f"offered {[action_name(a) for a in actions]}"
        deal.apply(min(actions))
    result = score_deal(deal.tally(), 0, options)
    assert result.declarations == pair(v["declarations"])
    assert result.belot == pair(v["belot_points"])


# ----------------------------------------------------------------- auctions


BY_AUCTION: dict[str, Vector] = {v["id"]: v for v in DATA["auctions"]["vectors"]}


def auction(dealer: int, calls: list[str], options: Options) -> Deal:
    deal = Deal(options, dealer, list(range(32)))
    run_steps(deal, calls)
    return deal


@pytest.mark.parametrize("v", vectors("auctions"))
def test_bulgarian_auction(v: Vector) -> None:
    """§11.4 A1–A6: the contract, declarer and multiplier an auction ends with."""
    deal = auction(int(v["dealer"]), v["calls"], Options.make("bulgarian"))
    assert deal.phase != "auction", "the auction should be over"
    assert deal.thrown_in == v["thrown_in"]
    if v["thrown_in"]:
        return
    assert CONTRACT_NAMES[deal.contract] == v["contract"]
    assert deal.declarer == v["declarer"]
    assert deal.declarer % 2 == v["bidding_team"]
    assert deal.multiplier == v["multiplier"]
    assert deal.phase == "play" and deal.to_move == (int(v["dealer"]) + 1) % 4


def test_thrown_in_deal_keeps_pool_and_rotates_dealer() -> None:
    """§11.4 A4 in a match: all pass, the pool survives and the next seat deals."""
    v = BY_AUCTION["A4"]
    match = Match(Options.make("bulgarian"), dealer=int(v["dealer"]), auto_deal=False)
    match.pool = int(v["pool_in"])  # as if an earlier deal had hung
    match.start_deal(list(range(32)))
    for call in v["calls"]:
        seat, action = step(call)
        match.apply_action(action, seat)
    assert match.results[-1].outcome == "redeal"
    assert match.pool == v["pool_out"]
    assert match.totals == (0, 0)
    assert match.start_deal().dealer == v["next_dealer"]


@pytest.mark.parametrize("v", vectors("call_snapshots"))
def test_legal_calls(v: Vector) -> None:
    """§11.4 snapshots: the exact calls open, and every other call refused."""
    deal = auction(int(v["dealer"]), v["calls"], Options.make("bulgarian"))
    assert deal.to_move == v["to_move"]
    want = sorted(parse_action(name) for name in v["legal"])
    assert deal.legal_actions() == want
    for action in range(BID, BID + 9):
        if action not in want:
            with pytest.raises(errors.IllegalBidError):
                deal.copy().apply(action)


# ----------------------------------------------------------------- legal cards

TRUMP_ORDER = "J9ATKQ87"  # RULES §1.3, strongest first
PLAIN_ORDER = "ATKQJ987"


def strength(card: str, contract: str) -> int:
    trump = contract == "AT" or card[1] == contract
    order = TRUMP_ORDER if trump else PLAIN_ORDER
    return len(order) - order.index(card[0])


def winner(trick: list[tuple[int, str]], contract: str) -> tuple[int, str]:
    """RULES §1.6, written here from the text rather than taken from the engine."""
    best = trick[0]
    for seat, card in trick[1:]:
        b = best[1]
        first_trump = contract in ("C", "D", "H", "S") and card[1] == contract and b[1] != contract
        higher = card[1] == b[1] and strength(card, contract) > strength(b, contract)
        if first_trump or higher:
            best = (seat, card)
    return best


def legal_cases() -> list[Any]:
    return [
        pytest.param(v, variant, id=f"{v['id']}-{variant}")
        for v in DATA["legal_moves"]["vectors"]
        for variant in ("bulgarian", "classic")
        if variant in v
    ]


@pytest.mark.parametrize(("v", "variant"), legal_cases())
def test_legal_cards(v: Vector, variant: str) -> None:
    """§11.5 L1–L15: the legal set, in each variant the example covers."""
    trick = [(int(s), c) for s, c in (t.split(":") for t in v["trick"])]
    win_seat, win_card = winner(trick, v["contract"])
    seat = int(v["seat"])
    got = legal_cards(
        mask(v["hand"]), [parse_card(c) for _, c in trick], parse_card(win_card),
        (win_seat - seat) % 2 == 0, contract_of(v["contract"]), Options.make(variant),
    )
    assert names(got) == names(mask(v[variant]))


# ----------------------------------------------------------------- classic auctions


@pytest.mark.parametrize("v", vectors("classic_auctions"))
def test_classic_auction(v: Vector) -> None:
    """§11.7 CA1–CA3: turned card, taker, completion packets, leader, refused calls."""
    section = DATA["classic_auctions"]
    first_five = {int(seat): mask(text) for seat, text in section["first_five"].items()}
    options = Options.make("classic")
    deal = Deal(options, int(v["dealer"]), card_list(section["deck"]))
    assert deal.turned == parse_card(v["turned"])
    assert deal.hands == [first_five[seat] for seat in range(4)]
    refused = {int(r["after"]): r for r in v["refused"]}
    assert all(i < len(v["calls"]) for i in refused)
    for i, call in enumerate(v["calls"]):
        if i in refused:
            run_steps(deal, [refused[i]])
        run_steps(deal, [call])
    if v["thrown_in"]:
        assert deal.thrown_in
        match = Match(options, dealer=int(v["dealer"]), auto_deal=False)
        match.start_deal(card_list(section["deck"]))
        for call in v["calls"]:
            seat, action = step(call)
            match.apply_action(action, seat)
        assert match.results[-1].outcome == "redeal"
        assert match.start_deal().dealer == v["next_dealer"]
        return
    taker = int(v["taker"])
    assert CONTRACT_NAMES[deal.contract] == v["contract"]
    assert deal.declarer == taker
    for seat in range(4):
        want = first_five[seat] | mask(v["completion"][str(seat)])
        if seat == taker:
            want |= 1 << parse_card(v["turned"])
        assert names(deal.dealt[seat]) == names(want), f"seat {seat}"
    assert deal.phase == "play"
    assert deal.to_move == deal.leader == v["leader"]
