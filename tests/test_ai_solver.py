"""The double-dummy solver against exhaustive search on random endgames."""

from __future__ import annotations

import random

from ai.solver import Solver, distinct_moves, split, valat_weight
from engine.cards import BEATS, POINTS, Mask, cards_of, parse_card
from engine.deal import legal_cards
from engine.options import Options
from engine.scoring import LAST_TRICK


def brute(hands: list[Mask], trick: list[int], leader: int, contract: int,
          options: Options, taken: int) -> int:
    """Team 0's points, plus or minus the valat weight, by plain minimax over every legal
    card: no pruning, no cache.  ``taken``: bit t set when team t took a trick before."""
    seat = (leader + len(trick)) % 4
    win_seat, win_card = -1, -1
    for i, card in enumerate(trick):
        if i == 0 or (1 << card) & BEATS[contract][win_card]:
            win_seat, win_card = (leader + i) % 4, card
    if len(trick) == 4:
        points = sum(POINTS[contract][c] for c in trick)
        if not any(hands):
            points += LAST_TRICK
        gained = points if win_seat % 2 == 0 else 0
        taken |= 1 << (win_seat % 2)
        if any(hands):
            return gained + brute(hands, [], win_seat, contract, options, taken)
        valat = {1: 1, 2: -1, 3: 0}[taken] * valat_weight(contract)
        return gained + valat
    legal = legal_cards(hands[seat], trick, win_card, bool(trick) and
                        (win_seat - seat) % 2 == 0, contract, options)
    values = []
    for card in cards_of(legal):
        hands[seat] ^= 1 << card
        values.append(brute(hands, [*trick, card], leader, contract, options, taken))
        hands[seat] ^= 1 << card
    return max(values) if seat % 2 == 0 else min(values)


def endgame(rng: random.Random, tricks: int) -> tuple[list[Mask], list[int], int]:
    """Random hands of ``tricks`` cards each, and a trick started with random cards."""
    deck = list(range(32))
    rng.shuffle(deck)
    hands = [sum(1 << c for c in deck[s * tricks:(s + 1) * tricks]) for s in range(4)]
    leader = rng.randrange(4)
    trick: list[int] = []
    for i in range(rng.randrange(4)):
        seat = (leader + i) % 4
        card = rng.choice(list(cards_of(hands[seat])))  # any card: the solver takes it as given
        hands[seat] ^= 1 << card
        trick.append(card)
    return hands, trick, leader


def rest(hands: list[Mask], trick: list[int], contract: int) -> int:
    """The points still to be won: cards in the hands and on the table, last trick."""
    cards = sum(hands) | sum(1 << c for c in trick)
    return sum(POINTS[contract][c] for c in cards_of(cards)) + LAST_TRICK


OPTIONS = [Options.make("bulgarian"), Options.make("classic"),
           Options.make("classic", undertrump_on_opponent_ruff="optional",
                        partner_ruff_no_undertrump=False)]


def test_solver_matches_exhaustive_search_on_endgames() -> None:
    rng = random.Random(2024)
    checked = valats = 0
    for n in range(400):
        options = OPTIONS[n % len(OPTIONS)]
        contract = rng.randrange(4 if options.classic else 6)
        hands, trick, leader = endgame(rng, 2 + n % 2 if n % 10 else 4)
        taken = n % 4  # no trick taken yet, only by team 0, only by team 1, by both
        solver = Solver(contract, options)
        expected = brute(list(hands), list(trick), leader, contract, options, taken)
        assert solver.value(hands, trick, leader, taken) == expected
        seat = (leader + len(trick)) % 4
        for card, value in solver.move_values(hands, trick, leader, taken).items():
            after = list(hands)
            after[seat] ^= 1 << card
            assert value == brute(after, [*trick, card], leader, contract, options, taken)
            valats += split(value, rest(hands, trick, contract))[1] is not None
        checked += 1
    assert checked == 400
    assert valats > 100  # the valat term is exercised, for either team


def test_equivalent_cards_are_pruned_but_valued() -> None:
    # Trumps hearts; seat 0 holds 7H 8H (equal: no card between, both 0 points).
    options = Options.make("bulgarian")
    hands = [0b11 << 16, 1 << 31, 1 << 23, 1 << 15]
    assert distinct_moves(hands[0], hands[0] | hands[1] | hands[2] | hands[3], 2) == [17]
    values = Solver(2, options).move_values(hands, [], 0)
    assert set(values) == {16, 17} and values[16] == values[17]


def test_horizon_search_stays_within_the_points_left() -> None:
    rng = random.Random(5)
    options = Options.make("bulgarian")
    for _ in range(20):
        hands, trick, leader = endgame(rng, 6)
        value = Solver(0, options, horizon=1).value(hands, trick, leader)
        assert 0 <= value <= rest(hands, trick, 0)


def test_a_valat_is_told_apart_from_taking_every_point() -> None:
    # Spades, two tricks left, seat 0 to lead: JS 9S take both tricks whatever the others
    # do.  Team 0 took every trick so far: a valat, told by the value passing the points.
    options = Options.make("bulgarian")
    hands = [sum(1 << parse_card(c) for c in pair.split())
             for pair in ("JS 9S", "7C 8C", "7D 8D", "7H 8H")]
    left = rest(hands, [], 3)
    solver = Solver(3, options)
    assert solver.value(hands, [], 0, taken=0b01) == left + valat_weight(3)
    assert split(solver.value(hands, [], 0, taken=0b01), left) == (left, 0)
    assert split(solver.value(hands, [], 0, taken=0b11), left) == (left, None)
    # Team 1 took every trick so far and now loses one: no valat either way.
    assert split(solver.value(hands, [], 0, taken=0b10), left) == (left, None)
