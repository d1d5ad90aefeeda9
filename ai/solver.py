"""Exact double-dummy solver: every hand open, alpha-beta over card points.

Kept small and free of engine objects (plain ints and masks, engine tables, and
:func:`engine.deal.legal_cards` for the rules) so that it can later be compiled without
changing its results; ``tests/test_ai_solver.py`` checks it against exhaustive search.

The value of a position is the card points team 0 takes from the cards still to be
won (the cards on the table and in the hands, plus the 10 of the last trick), plus
:func:`valat_weight` if team 0 takes every trick of the deal, minus it if team 1 does.
Team 0 maximises it, team 1 minimises it.  A valat takes every point, so the value
tells it apart from any other result (:func:`split`).  Belot and declarations are scored
by the caller, because they do not depend on which cards fall on which trick.

A ``horizon`` (tricks to complete before stopping) makes early positions cheaper: past
it the rest of the deal is split by :func:`estimate` instead of being searched.  Without
one the search is exact.

The search also exists compiled, in ``ai/_solver.c``, which the install builds when a C
compiler is at hand (:data:`NATIVE`); it is the same search, horizon included, 30 to 60
times faster, and ``tests/test_ai_solver.py`` holds both to the same values.  In pure
Python only a horizon makes the first tricks affordable.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Sequence
from functools import cache
from typing import Any

from engine.cards import (
    BEATS,
    NO_TRUMPS,
    POINTS,
    RUFFS,
    STRENGTH,
    SUIT_MASK,
    TRUMPS,
    Card,
    Contract,
    Mask,
    cards_of,
)
from engine.deal import legal_cards, trick_state
from engine.options import Options
from engine.scoring import LAST_TRICK, VALAT_BONUS

Hands = list[Mask]

# Whether the compiled search (ai/_solver.c) was built with the package and loads: a file
# that is there but does not import (truncated, another platform's) means Python search.
try:
    from ._solver import Core
except ImportError:
    NATIVE = False
else:
    NATIVE = True

# The compiled search's cache: 2**CACHE_BITS buckets of four entries (14 MiB); when a
# bucket is full the entry cheapest to recompute goes (tests shrink it to exercise that).
CACHE_BITS = 17


# The compiled search last built with ``reuse`` in each thread (``key``, ``core``): a bot
# builds a solver for every decision, and a fresh cache (14 MiB) costs 5 to 25 ms to
# clear (bench/ai_sampling.py); the one kept also keeps its entries, which hold for any
# position under the same contract, card values and rules.  Per thread, because a search
# lets other threads run and a Core serves one search at a time (app/bots.py may run
# bots in threads).
_KEPT = threading.local()


def _setup_key(contract: Contract, options: Options, points: Sequence[int]) -> tuple[Any, ...]:
    return (contract, options.beats[contract], tuple(points), options.no_undertrump_partner,
            options.must_undertrump, CACHE_BITS)


def _reused(contract: Contract, options: Options, points: Sequence[int]) -> Core | None:
    """This thread's kept compiled search, if set up for this contract and these rules."""
    if getattr(_KEPT, "key", None) == _setup_key(contract, options, points):
        core: Core = _KEPT.core
        return core
    return None


def _strongest_first(contract: Contract, suit: int) -> tuple[Card, ...]:
    strength = STRENGTH[contract]
    return tuple(sorted(cards_of(SUIT_MASK[suit]), key=lambda c: -strength[c]))


# Per contract and suit: the suit's cards, strongest first.
_ORDER = tuple(tuple(_strongest_first(k, suit) for suit in range(4)) for k in range(6))


def distinct_moves(legal: Mask, remaining: Mask, contract: Contract,
                   points: Sequence[int] | None = None) -> list[Card]:
    """One card of each group of equivalent legal cards, strongest first.

    Two cards of one hand are equivalent when they are of the same suit, score the same
    points and no card still in play (in a hand or on the table) lies between them in
    strength: swapping them can change no trick and no point.  Each suit's answer depends
    on two bytes only, so it is computed once and kept (per table of ``points``, the
    variant's card values in the contract: engine.cards.POINTS unless given).
    """
    values = POINTS[contract] if points is None else points
    table = _TABLE_IDS.setdefault(tuple(values), len(_TABLE_IDS))
    moves: list[Card] = []
    for suit in range(4):
        shift = 8 * suit
        held = legal >> shift & 0xFF
        if held:
            key = ((((table << 3 | contract) << 2 | suit) << 8 | held) << 8) \
                | (remaining >> shift & 0xFF)
            group = _GROUPS.get(key)
            if group is None:
                group = _GROUPS[key] = _distinct_in_suit(legal, remaining, contract, suit,
                                                         values)
            moves += group
    return moves


# distinct_moves' answers per table of card values, contract, suit, legal cards and cards
# in play of the suit; the tables of card values met so far, numbered.
_GROUPS: dict[int, tuple[Card, ...]] = {}
_TABLE_IDS: dict[tuple[int, ...], int] = {}


def _distinct_in_suit(legal: Mask, remaining: Mask, contract: Contract,
                      suit: int, points: Sequence[int]) -> tuple[Card, ...]:
    moves = []
    prev_legal, prev_points = False, -1
    for card in _ORDER[contract][suit]:
        bit = 1 << card
        if not remaining & bit:
            continue
        if legal & bit:
            if not (prev_legal and points[card] == prev_points):
                moves.append(card)
            prev_legal, prev_points = True, points[card]
        else:
            prev_legal = False
    return tuple(moves)


def valat_weight(contract: Contract) -> int:
    """A valat's worth in the value: half the bonus, because each card point that goes
    to team 0 moves the teams' difference by two (a quarter in no trumps, whose card
    points count double and whose valat bonus does not)."""
    return VALAT_BONUS // (4 if contract == NO_TRUMPS else 2)


def split(value: int, rest: int) -> tuple[int, int | None]:
    """Team 0's points and the team that takes every trick (if one does), from a value
    whose cards still to be won are worth ``rest`` (last trick included)."""
    if value > rest:
        return rest, 0
    if value < 0:
        return 0, 1
    return value, None


class SearchTimeout(Exception):
    """The deadline passed in the middle of a search; its result is void."""


class Solver:
    """Solves positions of one contract; reuse it to share the cache of trick starts.

    The cache maps (hands, leader, depth, teams that took a trick) at a trick start to
    bounds on the value, so it stays valid across the root moves of one sampled deal and
    across samples.  ``taken`` (bit ``t`` set when team ``t`` has taken a trick of the
    deal already) says whether a valat is still open.  ``reuse``: take over the compiled
    search (and its cache) of the last solver built with it for the same contract and
    rules in this thread, so that a bot's decisions share one (its ``nodes`` then count
    them all).
    """

    def __init__(
        self, contract: Contract, options: Options, horizon: int = 8,
        deadline: float | None = None, native: bool = NATIVE, reuse: bool = False,
    ) -> None:
        self.contract = contract
        self.options = options
        # The variant's card values in the contract (coinche's SA and TA differ).
        self.points = options.points[contract]
        self._bytes = _byte_points(self.points)
        self.horizon = horizon
        self.deadline = deadline
        self.cache: dict[int, tuple[int, int]] = {}
        self._nodes = 0
        weight = valat_weight(contract)
        # Valat term of a finished deal by ``taken``: only team 0, only team 1, both.
        self._valat = (0, weight, -weight, 0)
        # The compiled search's depth: tricks to complete before estimating, 0: none.
        self._depth = 0 if horizon >= 8 else horizon
        self._core: Core | None = None
        if native:
            self._core = _reused(contract, options, self.points) if reuse else None
        if native and self._core is None:
            self._core = Core(
                TRUMPS[contract], options.beats[contract], self.points, STRENGTH[contract],
                [card for suit in _ORDER[contract] for card in suit], RUFFS[contract],
                weight, options.no_undertrump_partner, options.must_undertrump,
                cache_bits=CACHE_BITS, weights=_WEIGHT[contract],
            )
            if reuse:
                _KEPT.key = _setup_key(contract, options, self.points)
                _KEPT.core = self._core

    @property
    def nodes(self) -> int:
        """Positions searched so far."""
        return self._nodes if self._core is None else self._core.nodes

    def value(
        self, hands: Sequence[Mask], trick: Sequence[Card], leader: int, taken: int = 0
    ) -> int:
        """The value from here with best play by all four seats."""
        if self._core is not None:
            return self._native(self._core.search(hands, trick, leader, taken, -_INFINITY,
                                                  _INFINITY, self._seconds(), self._depth))
        win_seat, win_card, points = trick_state(trick, leader, self.contract, self.points)
        return self._search(list(hands), list(trick), leader, win_seat, win_card, points,
                            self.horizon, taken, -_INFINITY, _INFINITY)

    def move_values(
        self, hands: Sequence[Mask], trick: Sequence[Card], leader: int, taken: int = 0
    ) -> dict[Card, int]:
        """Team 0's points after each legal card of the seat to move (exact for each)."""
        contract = self.contract
        hands = list(hands)
        trick = list(trick)
        seat = (leader + len(trick)) % 4
        win_seat, win_card, points = trick_state(trick, leader, contract, self.points)
        legal = legal_cards(hands[seat], trick, win_card, bool(trick) and
                            (win_seat - seat) & 1 == 0, contract, self.options)
        remaining = hands[0] | hands[1] | hands[2] | hands[3]
        for card in trick:
            remaining |= 1 << card
        values: dict[Card, int] = {}
        for card in distinct_moves(legal, remaining, contract, self.points):
            if self._core is not None:
                values[card] = self._native(self._core.play(
                    hands, trick, leader, taken, card, -_INFINITY, _INFINITY, self._seconds(),
                    self._depth))
            else:
                values[card] = self._play(hands, trick, leader, win_seat, win_card, points,
                                          self.horizon, taken, seat, card, -_INFINITY,
                                          _INFINITY)
        # Equivalent cards share the value of their group's representative.
        for card in cards_of(legal):
            if card not in values:
                values[card] = values[_representative(card, values, contract)]
        return values

    def _seconds(self) -> float:
        """The time the compiled search has left: negative for no limit."""
        if self.deadline is None:
            return -1.0
        return max(0.0, self.deadline - time.perf_counter())

    @staticmethod
    def _native(value: int | None) -> int:
        if value is None:
            raise SearchTimeout
        return value

    def _play(
        self, hands: Hands, trick: list[Card], leader: int, win_seat: int, win_card: Card,
        points: int, depth: int, taken: int, seat: int, card: Card, alpha: int, beta: int,
    ) -> int:
        """The value after ``seat`` plays ``card``; undoes its changes before returning."""
        contract = self.contract
        hands[seat] ^= 1 << card
        if not trick or (1 << card) & BEATS[contract][win_card]:
            win_seat, win_card = seat, card
        points += self.points[card]
        if len(trick) < 3:
            trick.append(card)
            result = self._search(hands, trick, leader, win_seat, win_card, points, depth,
                                  taken, alpha, beta)
            trick.pop()
        else:
            if not hands[seat]:
                points += LAST_TRICK
            gained = points if win_seat & 1 == 0 else 0
            taken |= 1 << (win_seat & 1)
            if not hands[seat]:
                result = gained + self._valat[taken]
            elif depth == 1:
                result = gained + estimate(hands, contract, self._bytes)
            else:
                result = gained + self._search(hands, [], win_seat, -1, -1, 0, depth - 1,
                                               taken, alpha - gained, beta - gained)
        hands[seat] ^= 1 << card
        return result

    def _search(
        self, hands: Hands, trick: list[Card], leader: int, win_seat: int, win_card: Card,
        points: int, depth: int, taken: int, alpha: int, beta: int,
    ) -> int:
        self._nodes += 1
        if self.deadline is not None and not self._nodes & 255 \
                and time.perf_counter() > self.deadline:
            raise SearchTimeout
        contract = self.contract
        key = 0
        if not trick:
            # What is left bounds the value: every point plus a valat while team 1 has
            # taken nothing, at worst nothing and team 1's valat while team 0 has not.
            most = _points(hands[0] | hands[1] | hands[2] | hands[3], self._bytes) + LAST_TRICK
            if not taken & 2:
                most += self._valat[1]
            if most <= alpha:
                return most
            least = 0 if taken & 1 else self._valat[2]
            if least >= beta:
                return least
            key = ((hands[0] << 104) | (hands[1] << 72) | (hands[2] << 40) | (hands[3] << 8)
                   | (taken << 6) | (depth << 2) | leader)
            bounds = self.cache.get(key)
            if bounds is not None:
                low, high = bounds
                if low == high or low >= beta:
                    return low
                if high <= alpha:
                    return high
                alpha, beta = max(alpha, low), min(beta, high)
        seat = (leader + len(trick)) % 4
        legal = legal_cards(hands[seat], trick, win_card, bool(trick) and
                            (win_seat - seat) & 1 == 0, contract, self.options)
        remaining = hands[0] | hands[1] | hands[2] | hands[3]
        for card in trick:
            remaining |= 1 << card
        moves = distinct_moves(legal, remaining, contract, self.points)
        if len(moves) > 1:
            moves = _ordered(moves, trick, win_seat, win_card, seat, contract, self.points)
        alpha0, beta0 = alpha, beta
        maximizing = seat & 1 == 0
        best = -_INFINITY if maximizing else _INFINITY
        for card in moves:
            value = self._play(hands, trick, leader, win_seat, win_card, points, depth, taken,
                               seat, card, alpha, beta)
            if maximizing:
                if value > best:
                    best = value
                    alpha = max(alpha, value)
            elif value < best:
                best = value
                beta = min(beta, value)
            if alpha >= beta:
                break
        if not trick:
            low, high = self.cache.get(key, (-_INFINITY, _INFINITY))
            if best <= alpha0:
                high = min(high, best)
            elif best >= beta0:
                low = max(low, best)
            else:
                low = high = best
            self.cache[key] = (low, high)
        return best


_INFINITY = 1 << 20
# Static weight of a card for :func:`estimate`: its strength, trumps above plain cards;
# summed with the points per suit byte, so that a leaf costs sixteen lookups.
_WEIGHT: tuple[tuple[int, ...], ...] = tuple(
    tuple((STRENGTH[k][c] + 1) * (3 if TRUMPS[k] >> c & 1 else 1) for c in range(32))
    for k in range(6)
)
_BYTE_WEIGHT = tuple(
    tuple(tuple(sum(_WEIGHT[k][8 * s + r] for r in range(8) if b >> r & 1) for b in range(256))
          for s in range(4))
    for k in range(6)
)
BytePoints = tuple[tuple[int, ...], ...]  # per suit, per byte of it: the points it holds


@cache
def _byte_points(points: tuple[int, ...]) -> BytePoints:
    """Per suit and byte of that suit's cards, their points under one table of values."""
    return tuple(tuple(sum(points[8 * s + r] for r in range(8) if b >> r & 1)
                       for b in range(256)) for s in range(4))


def _points(cards: Mask, points: BytePoints) -> int:
    """The card points of ``cards``."""
    return (points[0][cards & 0xFF] + points[1][cards >> 8 & 0xFF]
            + points[2][cards >> 16 & 0xFF] + points[3][cards >> 24])


def estimate(hands: Sequence[Mask], contract: Contract, points: BytePoints) -> int:
    """Team 0's share of the points still in the hands, by the weight of its cards."""
    weights = _BYTE_WEIGHT[contract]
    total = LAST_TRICK
    ours = theirs = 0
    for seat in range(4):
        hand = hands[seat]
        for suit in range(4):
            byte = hand >> (8 * suit) & 0xFF
            total += points[suit][byte]
            if seat & 1:
                theirs += weights[suit][byte]
            else:
                ours += weights[suit][byte]
    return total * ours // (ours + theirs)


def _ordered(
    moves: list[Card], trick: Sequence[Card], win_seat: int, win_card: Card, seat: int,
    contract: Contract, points: Sequence[int],
) -> list[Card]:
    """Likely best moves first, so that alpha-beta cuts early.

    Leading: fattest first, then strongest (on random deals this cuts a fifth of the
    nodes that strongest first leaves).  Following: the cheapest card that takes the
    trick, then the other cards, fattest first when the partner is winning, leanest
    first otherwise.
    """
    strength = STRENGTH[contract]
    if not trick:
        return sorted(moves, key=lambda c: (-points[c], -strength[c]))
    beats = BEATS[contract][win_card]
    partner = (win_seat - seat) & 1 == 0
    winners = [c for c in moves if (1 << c) & beats]
    others = [c for c in moves if not (1 << c) & beats]
    winners.sort(key=lambda c: (points[c], strength[c]))
    others.sort(key=lambda c: -points[c] if partner else points[c])
    if partner:
        return others + winners
    return winners + others


def _representative(card: Card, values: dict[Card, int], contract: Contract) -> Card:
    """The solved card equivalent to ``card``: the nearest stronger one of its group."""
    order = _ORDER[contract][card >> 3]
    for other in reversed(order[:order.index(card)]):
        if other in values:
            return other
    raise AssertionError("an equivalent card always precedes a pruned one")
