"""Exact double-dummy solver: every hand open, alpha-beta over card points.

Kept small and free of engine objects (plain ints and masks, engine tables, and
:func:`engine.deal.legal_cards` for the rules) so that it can later be compiled without
changing its results; ``tests/test_ai_solver.py`` checks it against exhaustive search.

The value of a position is the card points team 0 takes from the cards still to be
won (the cards on the table and in the hands, plus the 10 of the last trick).  Team 0
maximises it, team 1 minimises it.  Belot, declarations and valat are scored by the
caller, because they do not depend on which cards fall on which trick.
"""

from __future__ import annotations

from collections.abc import Sequence

from engine.cards import BEATS, POINTS, STRENGTH, SUIT_MASK, Card, Contract, Mask, cards_of
from engine.deal import legal_cards
from engine.options import Options
from engine.scoring import LAST_TRICK

Hands = list[Mask]
# Per contract and suit: the suit's cards, strongest first.
_ORDER: tuple[tuple[tuple[Card, ...], ...], ...] = tuple(
    tuple(
        tuple(sorted(cards_of(SUIT_MASK[suit]), key=lambda c, k=k: -STRENGTH[k][c]))
        for suit in range(4)
    )
    for k in range(6)
)


def distinct_moves(legal: Mask, remaining: Mask, contract: Contract) -> list[Card]:
    """One card of each group of equivalent legal cards, strongest first.

    Two cards of one hand are equivalent when they are of the same suit, score the same
    points and no card still in play (in a hand or on the table) lies between them in
    strength: swapping them can change no trick and no point.
    """
    moves = []
    points = POINTS[contract]
    for suit in range(4):
        if not legal & SUIT_MASK[suit]:
            continue
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
    return moves


class Solver:
    """Solves positions of one contract; reuse it to share the cache of trick starts.

    The cache maps (hands, leader) at a trick start to bounds on the value, so it stays
    valid across the root moves of one sampled deal and across samples.
    """

    def __init__(self, contract: Contract, options: Options) -> None:
        self.contract = contract
        self.options = options
        self.cache: dict[int, tuple[int, int]] = {}
        self.nodes = 0

    def value(self, hands: Sequence[Mask], trick: Sequence[Card], leader: int) -> int:
        """Team 0's points from here with best play by all four seats."""
        win_seat, win_card, points = _trick_state(trick, leader, self.contract)
        return self._search(list(hands), list(trick), leader, win_seat, win_card, points,
                            -1, _INFINITY)

    def move_values(
        self, hands: Sequence[Mask], trick: Sequence[Card], leader: int
    ) -> dict[Card, int]:
        """Team 0's points after each legal card of the seat to move (exact for each)."""
        contract = self.contract
        hands = list(hands)
        trick = list(trick)
        seat = (leader + len(trick)) % 4
        win_seat, win_card, points = _trick_state(trick, leader, contract)
        legal = legal_cards(hands[seat], trick, win_card, bool(trick) and
                            (win_seat - seat) & 1 == 0, contract, self.options)
        remaining = hands[0] | hands[1] | hands[2] | hands[3]
        for card in trick:
            remaining |= 1 << card
        values: dict[Card, int] = {}
        for card in distinct_moves(legal, remaining, contract):
            values[card] = self._play(hands, trick, leader, win_seat, win_card, points, seat,
                                      card, -1, _INFINITY)
        # Equivalent cards share the value of their group's representative.
        for card in cards_of(legal):
            if card not in values:
                values[card] = values[_representative(card, values, contract)]
        return values

    def _play(
        self, hands: Hands, trick: list[Card], leader: int, win_seat: int, win_card: Card,
        points: int, seat: int, card: Card, alpha: int, beta: int,
    ) -> int:
        """The value after ``seat`` plays ``card``; undoes its changes before returning."""
        contract = self.contract
        hands[seat] ^= 1 << card
        if not trick or (1 << card) & BEATS[contract][win_card]:
            win_seat, win_card = seat, card
        points += POINTS[contract][card]
        if len(trick) < 3:
            trick.append(card)
            result = self._search(hands, trick, leader, win_seat, win_card, points, alpha, beta)
            trick.pop()
        else:
            if not hands[seat]:
                points += LAST_TRICK
            gained = points if win_seat & 1 == 0 else 0
            if hands[seat]:
                result = gained + self._search(hands, [], win_seat, -1, -1, 0,
                                               alpha - gained, beta - gained)
            else:
                result = gained
        hands[seat] ^= 1 << card
        return result

    def _search(
        self, hands: Hands, trick: list[Card], leader: int, win_seat: int, win_card: Card,
        points: int, alpha: int, beta: int,
    ) -> int:
        self.nodes += 1
        contract = self.contract
        key = 0
        if not trick:
            key = (hands[0] << 98) | (hands[1] << 66) | (hands[2] << 34) | (hands[3] << 2) | leader
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
        moves = distinct_moves(legal, remaining, contract)
        if len(moves) > 1:
            moves = _ordered(moves, trick, win_seat, win_card, seat, contract)
        alpha0, beta0 = alpha, beta
        maximizing = seat & 1 == 0
        best = -1 if maximizing else _INFINITY
        for card in moves:
            value = self._play(hands, trick, leader, win_seat, win_card, points, seat, card,
                               alpha, beta)
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
            low, high = self.cache.get(key, (0, _INFINITY))
            if best <= alpha0:
                high = min(high, best)
            elif best >= beta0:
                low = max(low, best)
            else:
                low = high = best
            self.cache[key] = (low, high)
        return best


_INFINITY = 1 << 20


def _trick_state(trick: Sequence[Card], leader: int, contract: Contract) -> tuple[int, int, int]:
    """(winning seat, winning card, points) of a trick in progress."""
    win_seat, win_card, points = -1, -1, 0
    for i, card in enumerate(trick):
        if i == 0 or (1 << card) & BEATS[contract][win_card]:
            win_seat, win_card = (leader + i) % 4, card
        points += POINTS[contract][card]
    return win_seat, win_card, points


def _ordered(
    moves: list[Card], trick: Sequence[Card], win_seat: int, win_card: Card, seat: int,
    contract: Contract,
) -> list[Card]:
    """Likely best moves first, so that alpha-beta cuts early.

    Leading: strongest first.  Following: the cheapest card that takes the trick, then
    the other cards, fattest first when the partner is winning, leanest first otherwise.
    """
    if not trick:
        return moves
    beats = BEATS[contract][win_card]
    points = POINTS[contract]
    strength = STRENGTH[contract]
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
