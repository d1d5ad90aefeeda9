"""How well a sampled deal explains the cards the other seats chose to play.

The rules' hard facts (:mod:`ai.inference`) say which deals are possible; this says which
are likely.  Each card another seat played to a trick it did not lead is compared with
what ``normal``'s rules of thumb (:func:`ai.normal.normal_card`) would have played from
that seat's hand in the sampled deal, which is the sampled hand plus the cards the seat
has played since.  Only the traits of the card that any sensible player weighs are
compared: whether it takes the trick as it stands, whether it is a trump, its points.
A deal in which the seat's card has the traits of the model's earns weight 1, else
:data:`MISMATCH`: a player who threw a ten on an opponent's winning ace probably held
nothing cheaper in that suit.

Leads are not compared: the choice of a suit to lead follows plans that a few rules of
thumb do not read.  The model sees only what that seat could see then: its hand in the
deal, the public history up to that card.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from engine.cards import BEATS, FULL_DECK, POINTS, TRUMPS, Card, Contract, Mask
from engine.deal import legal_cards, trick_state
from engine.observation import Observation

from .inference import Knowledge, sample, weighted_pick
from .normal import normal_card
from .view import View

MISMATCH = 0.25  # weight of a deal in which a played card differs from the model's
# Deals drawn for each one kept, which is picked in proportion to its weight:
# sampling-importance-resampling, so that the costly solves go to likely deals.
CANDIDATES = 8


@dataclass(frozen=True, slots=True)
class _Play:
    """A card another seat played to a trick it did not lead, with the public facts
    the seat saw when it chose it."""

    seat: int
    card: Card
    later: Mask  # the cards the seat played from this one on, this one included
    before: tuple[Card, ...]  # the trick so far
    win_seat: int
    win_card: Card
    played: Mask  # every card played before this one
    voids: tuple[int, int, int, int]  # the public voids before this card


class PlayModel:
    """The plays of a seat's observation that say something about the hidden hands."""

    def __init__(self, obs: Observation) -> None:
        assert obs.contract is not None
        self.contract: Contract = obs.contract
        self.options = obs.options
        self.declarer = obs.declarer
        sequence = [((leader + i) % 4, card, leader, cards[:i])
                     for leader, cards in (*obs.tricks, (obs.leader, obs.trick))
                     for i, card in enumerate(cards)]
        plays: list[_Play] = []
        played = 0
        voids = [0, 0, 0, 0]
        for n, (seat, card, leader, before) in enumerate(sequence):
            if before and seat != obs.seat:
                win_seat, win_card, _ = trick_state(before, leader, self.contract)
                later = sum(1 << c for s, c, _, _ in sequence[n:] if s == seat)
                plays.append(_Play(seat, card, later, tuple(before), win_seat, win_card,
                                   played, (voids[0], voids[1], voids[2], voids[3])))
            played |= 1 << card
            if before and card >> 3 != before[0] >> 3:
                voids[seat] |= 1 << (before[0] >> 3)
        self.plays = tuple(plays)
        self._seats = sorted({p.seat for p in plays})
        # A seat's factor by its hand (seat << 32 | hand): the deals drawn for one
        # decision often give a seat the same hand, and its factor depends on that alone.
        self._factors: dict[int, float] = {}

    def weight(self, hands: list[Mask]) -> float:
        """The likelihood, up to a constant, of the others' plays in this deal."""
        weight = 1.0
        for seat in self._seats:
            key = seat << 32 | hands[seat]
            factor = self._factors.get(key)
            if factor is None:
                factor = self._factors[key] = self._factor(seat, hands[seat])
            weight *= factor
        return weight

    def _factor(self, seat: int, now: Mask) -> float:
        """The likelihood of ``seat``'s plays when it holds ``now``."""
        weight = 1.0
        k = self.contract
        for p in self.plays:
            if p.seat != seat:
                continue
            hand = now | p.later
            partner = (p.win_seat - p.seat) & 1 == 0
            legal = legal_cards(hand, p.before, p.win_card, partner, k, self.options)
            if legal & (legal - 1) == 0:
                continue
            view = View(p.seat, k, hand, legal, 0, p.before, p.win_seat, p.win_card,
                        p.played, FULL_DECK & ~p.played & ~hand, p.voids)
            expected = normal_card(view, self.declarer)
            if _traits(expected, p.win_card, k) != _traits(p.card, p.win_card, k):
                weight *= MISMATCH
        return weight


def _traits(card: Card, win_card: Card, k: Contract) -> tuple[int, int, int]:
    return BEATS[k][win_card] >> card & 1, TRUMPS[k] >> card & 1, POINTS[k][card]


def likely_deal(knowledge: Knowledge, model: PlayModel | None,
                rng: random.Random) -> list[Mask]:
    """A deal of the hidden cards: one of :data:`CANDIDATES` drawn, picked in proportion
    to its weight under ``model`` (without one, or before any play to read, one drawn)."""
    if model is None or not model.plays:
        return sample(knowledge, rng)
    deals = [sample(knowledge, rng) for _ in range(CANDIDATES)]
    return deals[weighted_pick([(i, model.weight(d)) for i, d in enumerate(deals)], rng)]
