"""The double-dummy solver against exhaustive search on random endgames, and its
compiled search (ai/_solver.c) against the Python one and the engine's rules."""

from __future__ import annotations

import itertools
import random
import threading
import time
from typing import Any

import pytest

import ai.solver as solver_module
from ai.solver import NATIVE, SearchTimeout, Solver, distinct_moves, split, valat_weight
from engine.cards import ALL_TRUMPS, BEATS, NO_TRUMPS, POINTS, Mask, cards_of, parse_card
from engine.deal import legal_cards, trick_state
from engine.options import Options
from engine.scoring import LAST_TRICK
from tests.strategies import examples


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
        points = sum(options.points[contract][c] for c in trick)
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


# Every set of the rules that change which cards may be played.
OPTIONS = [Options.make("bulgarian")] + [
    Options.make("classic", undertrump_on_opponent_ruff=under, partner_ruff_no_undertrump=no)
    for under, no in itertools.product(("compulsory", "optional"), (True, False))
]


def test_the_compiled_search_is_built() -> None:
    # `make test` installs the package with its C extension (a C compiler is part of this
    # machine); without it the tests below would only check the Python search.
    assert NATIVE


@pytest.mark.slow
@pytest.mark.parametrize("native", [False, True], ids=["python", "compiled"])
def test_solver_matches_exhaustive_search_on_endgames(native: bool) -> None:
    rng = random.Random(2024)
    checked = valats = 0
    for n in range(400):
        options = OPTIONS[n % len(OPTIONS)]
        contract = rng.randrange(len(options.contracts))
        hands, trick, leader = endgame(rng, 2 + n % 2 if n % 10 else 4)
        taken = n % 4  # no trick taken yet, only by team 0, only by team 1, by both
        solver = Solver(contract, options, native=native)
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


# Coinche's own card values: SA's ace 19, TA's two tables; its two ruff flags.
COINCHE = [Options.make("coinche", preset=preset, allow_sa=True, allow_ta=True, ta_values=ta)
           for preset, ta in (("default", "J13"), ("ffb_contree", "J14"))]


@pytest.mark.parametrize("native", [False, True], ids=["python", "compiled"])
def test_the_search_takes_the_variants_card_values(native: bool) -> None:
    """Coinche's SA and TA value cards unlike Bulgarian NT and AT: the search (Python and
    compiled) counts the variant's values, as the plain minimax does."""
    rng = random.Random(31)
    for n in range(90):
        options = COINCHE[n % 2]
        contract = (NO_TRUMPS, ALL_TRUMPS, rng.randrange(4))[n % 3]
        hands, trick, leader = endgame(rng, 2 + n % 2)
        taken = n % 4
        solver = Solver(contract, options, native=native)
        assert solver.value(hands, trick, leader, taken) == brute(
            list(hands), list(trick), leader, contract, options, taken)
    assert Options.make("coinche").points[NO_TRUMPS] != POINTS[NO_TRUMPS]


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


def test_compiled_and_python_searches_agree_on_larger_positions() -> None:
    rng = random.Random(77)
    for n in range(60):
        options = OPTIONS[n % len(OPTIONS)]
        contract = rng.randrange(len(options.contracts))
        hands, trick, leader = endgame(rng, 4 + n % 2)
        taken = rng.randrange(4)
        python = Solver(contract, options, native=False)
        compiled = Solver(contract, options, native=True)
        assert (compiled.move_values(hands, trick, leader, taken)
                == python.move_values(hands, trick, leader, taken))
        assert compiled.value(hands, trick, leader, taken) == python.value(
            hands, trick, leader, taken)
        # The same search, so the same positions visited (the compiled cache only forgets
        # entries when it is full, which these positions are far from).
        assert compiled.nodes == python.nodes


def test_compiled_and_python_look_aheads_agree() -> None:
    """A horizon (tricks to complete, the rest estimated) gives the same values and
    visits the same positions compiled as in Python, and a compiled search shared by
    look-aheads of every depth and exact searches keeps each one's values apart."""
    rng = random.Random(78)
    for n in range(examples(60)):  # a quarter in make test: each is a Python search
        options = OPTIONS[n % len(OPTIONS)]
        contract = rng.randrange(len(options.contracts))
        hands, trick, leader = endgame(rng, 5 + n % 3)
        taken = rng.randrange(4)
        horizon = 1 + n % 3
        python = Solver(contract, options, horizon, native=False)
        compiled = Solver(contract, options, horizon, native=True)
        assert (compiled.move_values(hands, trick, leader, taken)
                == python.move_values(hands, trick, leader, taken))
        assert compiled.nodes == python.nodes
        shared = [Solver(contract, options, depth, reuse=True) for depth in (8, 1, 2, 3)]
        for solver in shared + shared[::-1]:
            fresh = Solver(contract, options, solver.horizon, native=False)
            assert solver.value(hands, trick, leader, taken) == fresh.value(
                hands, trick, leader, taken)
    core = Solver(0, OPTIONS[0], native=True)._core
    assert core is not None
    bare = type(core)(0, [0] * 32, [0] * 32, list(range(32)), list(range(32)), 0, 0,
                      False, False)  # no weights
    hands = [1 | 2, 1 << 8 | 1 << 9, 1 << 16 | 1 << 17, 1 << 24 | 1 << 25]
    assert bare.search(hands, [], 0, 0, -1000, 1000, -1.0) is not None
    with pytest.raises(ValueError, match="weights"):  # nothing to estimate with
        bare.search(hands, [], 0, 0, -1000, 1000, -1.0, 1)
    with pytest.raises(ValueError, match="depth"):
        core.search(hands, [], 0, 0, -1000, 1000, -1.0, 9)

def test_compiled_rule_of_legal_cards_is_the_engines() -> None:
    rng = random.Random(8)
    checked = 0
    for options, contract in itertools.product(OPTIONS, range(6)):
        if contract not in options.contracts:
            continue
        core = Solver(contract, options, native=True)._core
        assert core is not None
        for _ in range(300):
            hands, trick, leader = endgame(rng, rng.randrange(1, 8))
            seat = (leader + len(trick)) % 4
            win_seat, win_card, _ = trick_state(trick, leader, contract)
            partner = bool(trick) and (win_seat - seat) % 2 == 0
            assert core.legal(hands[seat], trick, win_card, partner) == legal_cards(
                hands[seat], trick, win_card, partner, contract, options)
            checked += 1
    assert checked == 300 * 4 * 4 + 300 * 6


@pytest.mark.parametrize("native", [False, True], ids=["python", "compiled"])
def test_a_passed_deadline_voids_the_search_and_keeps_nothing_of_it(native: bool) -> None:
    hands, trick, leader = endgame(random.Random(1), 6)
    solver = Solver(0, OPTIONS[0], deadline=time.perf_counter(), native=native)
    with pytest.raises(SearchTimeout):
        solver.move_values(hands, trick, leader)
    solver.deadline = None
    assert solver.move_values(hands, trick, leader) == Solver(
        0, OPTIONS[0], native=native).move_values(hands, trick, leader)


def test_compiled_search_refuses_impossible_positions() -> None:
    core = Solver(0, OPTIONS[0], native=True)._core
    assert core is not None
    hand = 0b111
    with pytest.raises(ValueError, match="two places"):
        core.search([hand, hand, 0, 0], [], 0, 0, -1000, 1000, -1.0)
    with pytest.raises(ValueError, match="two places"):
        core.search([hand, 0, 0, 0], [1], 0, 0, -1000, 1000, -1.0)
    with pytest.raises(ValueError, match="not in the hand"):
        core.play([hand, 1 << 8, 1 << 16, 1 << 24], [], 0, 0, 5, -1000, 1000, -1.0)
    with pytest.raises(ValueError):
        core.search([hand, 0, 0], [], 0, 0, -1000, 1000, -1.0)
    with pytest.raises(ValueError):
        core.search([1 << 32, 0, 0, 0], [], 0, 0, -1000, 1000, -1.0)
    with pytest.raises(ValueError):
        core.search([hand, 0, 0, 0], [8, 9, 10, 11], 0, 0, -1000, 1000, -1.0)
    with pytest.raises(ValueError):
        core.search([hand, 0, 0, 0], [], 4, 0, -1000, 1000, -1.0)
    with pytest.raises(ValueError, match="eight"):
        core.search([0xFFFFFFFF, 0, 0, 0], [], 0, 0, -1000, 1000, -1.0)
    with pytest.raises(ValueError, match="seconds"):
        core.search([1, 1 << 8, 1 << 16, 1 << 24], [], 0, 0, -1000, 1000, float("nan"))

    class Shrinking:
        """A card mask whose reading empties the list it is read from."""

        def __index__(self) -> int:
            held.clear()
            return 1

    held: list[Any] = [Shrinking(), 1 << 8, 1 << 16, 1 << 24]
    assert core.search(held, [], 0, 0, -1000, 1000, -1.0) is not None  # read from a copy
    assert held == []
    # The widest window is the full one (values are far inside it).
    hands = [1 | 2, 1 << 8 | 1 << 9, 1 << 16 | 1 << 17, 1 << 24 | 1 << 25]
    assert core.search(hands, [], 1, 0, -2**31, 2**31 - 1, -1.0) == Solver(
        0, OPTIONS[0], native=False).value(hands, [], 1)
    bare = type(core).__new__(type(core))  # never set up: no cache to search with
    with pytest.raises(RuntimeError, match="__init__"):
        bare.search([1, 2, 4, 8], [], 0, 0, -1000, 1000, -1.0)


def test_a_full_compiled_cache_keeps_every_bound_true(monkeypatch: pytest.MonkeyPatch) -> None:
    # A cache of one bucket: entries evict each other all the time, also while the
    # position that found one is still being searched.  Every answer must keep the
    # fail-soft contract against the exact value: at most alpha means the value is at
    # most that, at least beta at least that, else the value itself.
    rng = random.Random(6)
    options = OPTIONS[0]
    checked = 0
    for _ in range(60):
        contract = rng.randrange(6)
        positions = []
        for _ in range(3):
            deck = rng.sample(range(32), 24)
            hands = [sum(1 << c for c in deck[6 * s:6 * s + 6]) for s in range(4)]
            leader, taken = rng.randrange(4), rng.randrange(4)
            exact = Solver(contract, options, native=True).value(hands, [], leader, taken)
            positions.append((hands, leader, taken, exact))
        monkeypatch.setattr(solver_module, "CACHE_BITS", 0)
        core = Solver(contract, options, native=True)._core
        monkeypatch.undo()
        assert core is not None
        for _ in range(200):
            hands, leader, taken, exact = rng.choice(positions)
            alpha = exact + rng.randint(-30, 30)
            beta = alpha + rng.randint(1, 25)
            found = core.search(hands, [], leader, taken, alpha, beta, -1.0)
            assert found is not None
            if found <= alpha:
                assert exact <= found, (hands, leader, taken, alpha, beta)
            elif found >= beta:
                assert exact >= found, (hands, leader, taken, alpha, beta)
            else:
                assert found == exact, (hands, leader, taken, alpha, beta)
            checked += 1
    assert checked == 12000


def test_a_reused_search_keeps_its_cache_for_the_same_contract_and_rules_only() -> None:
    """Solvers built with ``reuse`` share one compiled search (and its cache) while the
    contract and the rules stay the same, and value every position as a fresh one does,
    a passed deadline included."""
    classic, other = OPTIONS[1], OPTIONS[3]  # the opponent's ruff under-trumped or not
    first = Solver(3, classic, reuse=True)
    rng = random.Random(4)
    positions = [endgame(rng, tricks) for tricks in (5, 6, 5, 6)]
    for hands, trick, leader in positions:
        with pytest.raises(SearchTimeout):
            Solver(3, classic, deadline=time.perf_counter(), reuse=True).move_values(
                hands, trick, leader)
        solver = Solver(3, classic, reuse=True)
        assert solver._core is first._core
        assert solver.move_values(hands, trick, leader) == Solver(3, classic).move_values(
            hands, trick, leader)
    assert Solver(3, classic)._core is not first._core  # without reuse: a fresh one
    for contract, options in ((2, classic), (3, other)):
        assert Solver(contract, options, reuse=True)._core is not first._core
    # Each thread keeps its own: a search lets the others run, and a Core serves one.
    again = Solver(3, classic, reuse=True)
    elsewhere: list[Solver] = []
    thread = threading.Thread(target=lambda: elsewhere.append(Solver(3, classic, reuse=True)))
    thread.start()
    thread.join()
    assert Solver(3, classic, reuse=True)._core is again._core
    assert elsewhere[0]._core is not again._core
