"""Perft for the card play, in the manner of python-chess's perft vectors.

For a few fixed decks, dealers and auctions (every variant; a suit contract, NT and AT in
bulgarian, SA and TA in coinche) the deal is driven to the start of play through
:meth:`Deal.apply`, and the number of legal card sequences of the first trick (4 cards)
and of the first two tricks (8 cards) is counted with :meth:`Deal.push`/:meth:`Deal.pop`.
Only cards are counted: announcements and belot are left out, so the counts are about the
rules of RULES §5 (COINCHE.md §5).

The expected numbers were computed once by the brute force below, which is written from
RULES §3 (dealing; COINCHE.md §3.2 for coinche), §1.3/§1.6 (trick winner) and the
§5.2/§5.3 pseudocode, on lists of card names and without any engine code;
``test_reference_reproduces_vectors`` keeps it honest.  On a mismatch the test prints the
count under each first card ("divide").  The Coinche auction has its perft at the end.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pytest

from engine.actions import parse_action
from engine.cards import parse_card
from engine.deal import Deal
from engine.options import Options

# ------------------------------------------------------------------ reference (RULES only)

SUITS = "CDHS"
TRUMP_ORDER = "78QKTA9J"  # weakest to strongest, RULES §1.3
PLAIN_ORDER = "789JQKTA"


def _is_trump(card: str, contract: str) -> bool:
    return contract == "AT" or card[1] == contract


def _strength(card: str, contract: str) -> int:
    order = TRUMP_ORDER if _is_trump(card, contract) else PLAIN_ORDER
    return order.index(card[0])


def _winner(trick: list[str], contract: str) -> int:
    """Index in ``trick`` of the card winning it (RULES §1.6)."""
    best = 0
    for i in range(1, len(trick)):
        c, b = trick[i], trick[best]
        ruffs = contract in SUITS and c[1] == contract and b[1] != contract
        if ruffs or (c[1] == b[1] and _strength(c, contract) > _strength(b, contract)):
            best = i
    return best


def _legal_bulgarian(hand: list[str], trick: list[str], contract: str) -> list[str]:
    """RULES §5.2 ``legal_bulgarian``."""
    if not trick:
        return list(hand)
    led = trick[0][1]
    follow = [c for c in hand if c[1] == led]
    if follow:
        if contract == "AT" or (contract in SUITS and led == contract):
            top = max((c for c in trick if c[1] == led), key=lambda c: _strength(c, contract))
            higher = [c for c in follow if _strength(c, contract) > _strength(top, contract)]
            return higher or follow
        return follow
    if contract in ("NT", "AT"):
        return list(hand)
    trumps = [c for c in hand if c[1] == contract]
    if not trumps:
        return list(hand)
    if (len(trick) - _winner(trick, contract)) % 2 == 0:  # partner winning
        return list(hand)
    on_table = [c for c in trick if c[1] == contract]
    if on_table:
        best = max(on_table, key=lambda c: _strength(c, contract))
        higher = [c for c in trumps if _strength(c, contract) > _strength(best, contract)]
        return higher or list(hand)
    return trumps


def _legal_classic(
    hand: list[str], trick: list[str], trump: str, compulsory: bool, no_under_partner: bool
) -> list[str]:
    """RULES §5.3 ``legal_classic`` with the two flags of §9 that change it."""
    if not trick:
        return list(hand)
    led = trick[0][1]
    follow = [c for c in hand if c[1] == led]
    if follow:
        if led == trump:
            top = max((c for c in trick if c[1] == trump), key=lambda c: _strength(c, trump))
            higher = [c for c in follow if _strength(c, trump) > _strength(top, trump)]
            return higher or follow
        return follow
    trumps = [c for c in hand if c[1] == trump]
    if not trumps:
        return list(hand)
    on_table = [c for c in trick if c[1] == trump]
    top_t = max(on_table, key=lambda c: _strength(c, trump)) if on_table else None
    if (len(trick) - _winner(trick, trump)) % 2 == 0:  # partner winning
        if top_t is None or not no_under_partner:
            return list(hand)
        assert top_t is not None
        allowed = [
            c for c in hand
            if c[1] != trump or _strength(c, trump) > _strength(top_t, trump)
        ]
        return allowed or list(hand)
    if top_t is not None:
        higher = [c for c in trumps if _strength(c, trump) > _strength(top_t, trump)]
        if higher:
            return higher
        return trumps if compulsory else list(hand)
    return trumps


@dataclass
class Position:
    """A vector: the deal, its auction and the expected perft counts (1 and 2 tricks)."""

    name: str
    variant: str
    dealer: int
    deck: str
    calls: list[str]
    expected: tuple[int, int]
    flags: dict[str, Any] = field(default_factory=dict)


def _reference_hands(pos: Position) -> tuple[list[list[str]], str]:
    """Deal ``pos.deck`` as RULES §3.2/§3.3 say and run the auction; hands and contract."""
    deck = pos.deck.split()
    d = pos.dealer
    order = [(d + 1 + i) % 4 for i in range(4)]
    hands: list[list[str]] = [[], [], [], []]
    pos_in_deck = 0
    for size in (3, 2):
        for seat in order:
            hands[seat] += deck[pos_in_deck:pos_in_deck + size]
            pos_in_deck += size
    if pos.variant == "coinche":  # COINCHE.md §3.2: all 32 cards before the auction
        hands = [[], [], [], []]
        pos_in_deck = 0
        for size in pos.flags.get("deal_packets", "3-2-3").split("-"):
            for seat in order:
                hands[seat] += deck[pos_in_deck:pos_in_deck + int(size)]
                pos_in_deck += int(size)
        last = [c for c in pos.calls if c not in ("pass", "coinche", "surcoinche")][-1]
        strain = last.lstrip("0123456789").removeprefix("capot").removeprefix("generale")
        return hands, {"SA": "NT", "TA": "AT"}.get(strain, strain)
    bids = [(order[i % 4], c) for i, c in enumerate(pos.calls)]
    if pos.variant == "bulgarian":
        contract_bids = [(s, c) for s, c in bids if c in ("C", "D", "H", "S", "NT", "AT")]
        contract = contract_bids[-1][1]
        for seat in order:
            hands[seat] += deck[pos_in_deck:pos_in_deck + 3]
            pos_in_deck += 3
        return hands, contract
    turned = deck[20]
    taker, contract = next((s, c) for s, c in bids if c != "pass")
    hands[taker].append(turned)
    pos_in_deck = 21
    for seat in order:
        size = 2 if seat == taker else 3
        hands[seat] += deck[pos_in_deck:pos_in_deck + size]
        pos_in_deck += size
    return hands, contract


def reference_perft(pos: Position, plies: int) -> dict[str, int]:
    """Brute-force count of the card sequences of ``plies`` cards, per first card."""
    hands, contract = _reference_hands(pos)
    flags = pos.flags

    def legal(hand: list[str], trick: list[str]) -> list[str]:
        # coinche's SA and TA follow RULES §5.2's NT and AT (COINCHE.md §5.3, §5.4)
        if pos.variant == "bulgarian" or contract in ("NT", "AT"):
            return _legal_bulgarian(hand, trick, contract)
        return _legal_classic(
            hand, trick, contract,
            flags.get("undertrump_on_opponent_ruff", "compulsory") == "compulsory",
            flags.get("partner_ruff_no_undertrump", True),
        )

    def count(seat: int, trick: list[tuple[int, str]], left: int) -> int:
        if left == 0:
            return 1
        cards = [c for _, c in trick]
        total = 0
        for card in legal(hands[seat], cards):
            hands[seat].remove(card)
            after = [*trick, (seat, card)]
            if len(after) == 4:
                nxt = after[_winner([c for _, c in after], contract)][0]
                total += count(nxt, [], left - 1)
            else:
                total += count((seat + 1) % 4, after, left - 1)
            hands[seat].append(card)
        return total

    eldest = (pos.dealer + 1) % 4
    divide: dict[str, int] = {}
    for card in legal(hands[eldest], []):
        hands[eldest].remove(card)
        divide[card] = count((eldest + 1) % 4, [(eldest, card)], plies - 1)
        hands[eldest].append(card)
    return divide


# ------------------------------------------------------------------ vectors

# Decks: random.Random(n).shuffle of the 32 names for n = 3, 28 and 6.
DECK_A = (
    "8D 7S KD 9D JS 8C QC TC KH QH QD JD AH 7H TS KC "
    "AC QS 7D 8S 7C 9S 9C KS JH AS TH TD JC 8H 9H AD"
)
DECK_B = (
    "8C AD JS QH 7S 7D 7H 9D 9H 7C TD TC 8D 9C 9S 8S "
    "JD KS TS KC QD KD JH QS AS QC KH TH 8H JC AH AC"
)
DECK_C = (
    "9C 7H QS 8D TH AC AS 8S JD TC TS JH 8H AH KD QD "
    "KC KH JS 9S 9D TD KS 9H QH JC 7C 8C 7D 7S AD QC"
)
PASS3 = ["pass", "pass", "pass"]

POSITIONS = [
    Position("bulgarian-hearts", "bulgarian", 3, DECK_A, ["H", *PASS3], (96, 3826)),
    Position("bulgarian-no-trumps", "bulgarian", 3, DECK_A, ["NT", *PASS3], (156, 11488)),
    Position("bulgarian-all-trumps", "bulgarian", 3, DECK_A, ["AT", *PASS3], (91, 4450)),
    Position("bulgarian-diamonds", "bulgarian", 0, DECK_B, ["pass", "pass", "D", *PASS3],
             (38, 2204)),
    # the declarer (seat 3) does not lead: seat 2, after the dealer, does
    Position("bulgarian-spades-redoubled", "bulgarian", 1, DECK_B,
             ["pass", "S", "double", "redouble", *PASS3], (28, 1030)),
    # classic: seat 1 takes the turned QD; the three settings of §5.3's flags differ
    Position("classic-take", "classic", 0, DECK_B, ["D"], (38, 1836)),
    Position("classic-take-optional-undertrump", "classic", 0, DECK_B, ["D"], (38, 1980),
             {"undertrump_on_opponent_ruff": "optional"}),
    Position("classic-take-partner-free", "classic", 0, DECK_B, ["D"], (38, 1868),
             {"partner_ruff_no_undertrump": False}),
    # classic round two: all pass on the turned card, then seat 0 names spades
    Position("classic-round-two", "classic", 2, DECK_C, ["pass"] * 5 + ["S"], (60, 3529)),
    # coinche: eight cards dealt 3-2-3 (or as deal_packets says) before the auction; the
    # eldest leads whoever declared; the ruff flags as classic's
    Position("coinche-hearts", "coinche", 3, DECK_A, ["80H", *PASS3], (96, 3796)),
    Position("coinche-hearts-ffb", "coinche", 3, DECK_A, ["80H", *PASS3], (96, 3826),
             {"undertrump_on_opponent_ruff": "optional", "partner_ruff_no_undertrump": False}),
    Position("coinche-sans-atout", "coinche", 0, DECK_B, ["pass", "90SA", *PASS3], (98, 14154),
             {"allow_sa": True}),
    Position("coinche-tout-atout-2-3-3", "coinche", 1, DECK_C, ["100TA", *PASS3], (70, 16709),
             {"allow_ta": True, "deal_packets": "2-3-3"}),
    Position("coinche-capot-surcoinched", "coinche", 0, DECK_B,
             ["pass", "capotS", "coinche", "surcoinche"], (28, 1018)),
]

# ------------------------------------------------------------------ engine side


def _engine_deal(pos: Position) -> Deal:
    deal = Deal(
        Options.make(pos.variant, **pos.flags), pos.dealer,
        [parse_card(c) for c in pos.deck.split()],
    )
    for call in pos.calls:
        deal.apply(parse_action(call))
    assert deal.phase == "play"
    return deal


def _engine_count(deal: Deal, left: int) -> int:
    if left == 0:
        return 1
    total = 0
    for action in deal.legal_actions():
        if action < 32:  # cards only: no announcements, no belot variants
            deal.push(action)
            total += _engine_count(deal, left - 1)
            deal.pop()
    return total


def engine_perft(pos: Position, plies: int) -> dict[str, int]:
    deal = _engine_deal(pos)
    divide: dict[str, int] = {}
    for action in deal.legal_actions():
        if action < 32:
            deal.push(action)
            divide["789TJQKA"[action % 8] + SUITS[action // 8]] = _engine_count(deal, plies - 1)
            deal.pop()
    return divide


def _show(divide: dict[str, int]) -> str:
    return ", ".join(f"{card}: {n}" for card, n in sorted(divide.items()))


@pytest.mark.parametrize("pos", POSITIONS, ids=[p.name for p in POSITIONS])
@pytest.mark.parametrize("tricks", [1, 2])
def test_perft(pos: Position, tricks: int) -> None:
    divide = engine_perft(pos, 4 * tricks)
    total = sum(divide.values())
    expected = pos.expected[tricks - 1]
    if total != expected:
        reference = reference_perft(pos, 4 * tricks)
        pytest.fail(
            f"{pos.name}, {tricks} trick(s): engine counts {total}, expected {expected}\n"
            f"engine divide:    {_show(divide)}\nreference divide: {_show(reference)}"
        )


@pytest.mark.parametrize("pos", POSITIONS, ids=[p.name for p in POSITIONS])
def test_reference_reproduces_vectors(pos: Position) -> None:
    counts = tuple(sum(reference_perft(pos, 4 * t).values()) for t in (1, 2))
    assert counts == pos.expected


@pytest.mark.parametrize("pos", POSITIONS, ids=[p.name for p in POSITIONS])
def test_dealt_hands_match_reference(pos: Position) -> None:
    """The engine deals the vectors' decks as RULES §3 says (the perft's starting point)."""
    deal = _engine_deal(pos)
    hands, contract = _reference_hands(pos)
    got = [sorted(c for c in range(32) if mask >> c & 1) for mask in deal.dealt]
    assert got == [sorted(parse_card(c) for c in hand) for hand in hands]
    assert ("C", "D", "H", "S", "NT", "AT")[deal.contract] == contract
    assert deal.to_move == deal.leader == (pos.dealer + 1) % 4


# ------------------------------------------------------------------ the Coinche auction

# Perft of the auction (COINCHE.md §4): the number of call sequences of n calls from the
# start, an out-of-turn coinche (``coinche_timing = any_time``) counting as one more way
# to go on.  The reference below is written from §4.2's pseudocode and §4.3-§4.4 on
# strings, without engine code; the engine's side walks Deal.apply on copies.

VALUES = [str(v) for v in range(80, 161, 10)] + ["capot", "generale"]


@dataclass
class _Auction:
    to_move: int
    value: int = -1  # index in VALUES of the standing bid
    declarer: int = -1
    level: int = 0
    passes: int = 0
    over: bool = False


def _reference_calls(a: _Auction, flags: dict[str, Any]) -> list[tuple[int, str]]:
    strains = ["C", "D", "H", "S"] + ["SA"] * flags.get("allow_sa", False) \
        + ["TA"] * flags.get("allow_ta", False)
    top = len(VALUES) if flags.get("generale", False) else len(VALUES) - 1
    p = a.to_move
    calls = [(p, "pass")]
    if a.level == 0 or flags.get("overbid_after_coinche", False):
        calls += [(p, VALUES[v] + s) for v in range(a.value + 1, top) for s in strains]
    if a.value >= 0 and a.level == 0:
        for seat in range(4):
            opponent = (seat - a.declarer) % 2 == 1
            if opponent and (seat == p or flags.get("coinche_timing") == "any_time"):
                calls.append((seat, "coinche"))
    if a.value >= 0 and a.level == 1 and (p - a.declarer) % 2 == 0:
        calls.append((p, "surcoinche"))
    return calls


def _reference_after(a: _Auction, seat: int, call: str) -> _Auction:
    b = _Auction(**vars(a))
    b.to_move = (seat + 1) % 4
    if call == "pass":
        b.passes += 1
        b.over = b.passes == (4 if b.value < 0 else 3)
    elif call == "coinche":
        b.level, b.passes = 1, 0
    elif call == "surcoinche":
        b.level, b.over = 2, True
    else:
        b.value = next(i for i, v in enumerate(VALUES) if call.startswith(v) and
                       call[len(v):] in ("C", "D", "H", "S", "SA", "TA"))
        b.declarer, b.level, b.passes = seat, 0, 0
    return b


def reference_auction_perft(flags: dict[str, Any], dealer: int, depth: int) -> int:
    def count(a: _Auction, left: int) -> int:
        if left == 0:
            return 1
        if a.over:
            return 0
        return sum(count(_reference_after(a, s, c), left - 1) for s, c in
                   _reference_calls(a, flags))
    return count(_Auction((dealer + 1) % 4), depth)


def engine_auction_perft(flags: dict[str, Any], dealer: int, depth: int) -> int:
    def count(deal: Deal, left: int) -> int:
        if left == 0:
            return 1
        if deal.phase != "auction":
            return 0
        total = 0
        for seat in deal.actors():
            for action in deal.legal_actions_of(seat):
                after = deal.copy()
                after.apply(action, seat)
                total += count(after, left - 1)
        return total
    return count(Deal(Options.make("coinche", **flags), dealer, list(range(32))), depth)


# flags, dealer, depth, count
AUCTION_VECTORS = [
    ({}, 3, 1, 41),  # 36 bids 80C..160S, 4 capots, pass
    ({}, 3, 2, 841),
    ({}, 0, 3, 10801),
    ({"coinche_timing": "any_time"}, 3, 3, 11721),
    ({"overbid_after_coinche": True, "coinche_timing": "any_time"}, 2, 3, 13161),
    ({"allow_sa": True, "allow_ta": True, "generale": True}, 1, 2, 2179),
]


@pytest.mark.parametrize("vector", AUCTION_VECTORS,
                         ids=[f"auction-{i}" for i in range(len(AUCTION_VECTORS))])
def test_coinche_auction_perft(vector: tuple[dict[str, Any], int, int, int]) -> None:
    flags, dealer, depth, expected = vector
    assert engine_auction_perft(flags, dealer, depth) == expected
    assert reference_auction_perft(flags, dealer, depth) == expected
