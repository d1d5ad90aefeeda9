"""What every level reads off an observation: the trick, the cards gone, the card actions.

Only public facts and the seat's own hand are used, so nothing here can leak hidden
state; the levels build their judgement on top of it.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass

from engine.actions import ANNOUNCE, BELOT, BID, Action, is_announce
from engine.cards import (
    BEATS,
    FULL_DECK,
    POINTS,
    STRENGTH,
    SUIT_MASK,
    TRUMPS,
    Card,
    Contract,
    Mask,
    cards_of,
)
from engine.deal import Phase, trick_state
from engine.declarations import COMBOS
from engine.observation import Observation


@dataclass(frozen=True, slots=True)
class View:
    """The play-phase facts of one observation, computed once per decision."""

    seat: int
    contract: Contract
    hand: Mask
    legal: Mask  # cards that may be played now
    belot: Mask  # cards that may be played announcing belot
    trick: tuple[Card, ...]
    win_seat: int  # -1 when the trick is empty
    win_card: Card
    played: Mask  # every card played so far, the current trick included
    others: Mask  # the cards in the other three hands
    voids: tuple[int, int, int, int]  # per seat, the suits (bits) it has shown out of

    @property
    def partner_winning(self) -> bool:
        return bool(self.trick) and (self.win_seat - self.seat) & 1 == 0

    @property
    def trumps(self) -> Mask:
        return TRUMPS[self.contract]

    def is_master(self, card: Card) -> bool:
        """No card still out in the other hands is stronger in the card's suit."""
        same = SUIT_MASK[card >> 3] & self.others
        strength = STRENGTH[self.contract]
        return all(strength[c] < strength[card] for c in cards_of(same))

    def lowest(self, mask: Mask) -> Card:
        """The card least worth keeping: plain before trump, then fewest points, weakest."""
        k = self.contract
        return min(cards_of(mask),
                   key=lambda c: (TRUMPS[k] >> c & 1, POINTS[k][c], STRENGTH[k][c]))

    def weakest_winner(self, mask: Mask) -> Card:
        """The weakest card of ``mask`` (used among cards that all take the trick)."""
        k = self.contract
        return min(cards_of(mask), key=lambda c: (STRENGTH[k][c] + 8 * (TRUMPS[k] >> c & 1),
                                                  POINTS[k][c]))

    def beating(self) -> Mask:
        """Legal cards that would take the trick as it stands."""
        if not self.trick:
            return self.legal
        return self.legal & BEATS[self.contract][self.win_card]


def view_of(obs: Observation) -> View:
    """The play-phase view of an observation whose seat is to play a card."""
    assert obs.contract is not None
    contract = obs.contract
    legal = belot = 0
    for action in obs.legal_actions:
        if action < BELOT:
            legal |= 1 << action
        elif action < BID:
            belot |= 1 << (action - BELOT)
    played = 0
    voids = [0, 0, 0, 0]
    for leader, cards in (*obs.tricks, (obs.leader, obs.trick)):
        for i, card in enumerate(cards):
            played |= 1 << card
            if card >> 3 != cards[0] >> 3:
                voids[(leader + i) % 4] |= 1 << (cards[0] >> 3)
    win_seat, win_card, _ = trick_state(obs.trick, obs.leader, contract)
    return View(obs.seat, contract, obs.hand, legal, belot, obs.trick, win_seat, win_card,
                played, FULL_DECK & ~played & ~obs.hand,
                (voids[0], voids[1], voids[2], voids[3]))


def play(view: View, card: Card) -> Action:
    """The action that plays ``card``, announcing belot with it whenever allowed."""
    return BELOT + card if view.belot >> card & 1 else card


def announcement(obs: Observation) -> Action | None:
    """The most valuable combination still open to announce, if any.

    Announcing is always worth it here: a declaration only adds to its team's points.
    """
    open_ids = [a for a in obs.legal_actions if is_announce(a)]
    if not open_ids or obs.contract is None:
        return None
    rules = obs.options.declarations_in(obs.contract)
    assert rules is not None  # announcements are open only where declarations are made
    return max(open_ids, key=lambda a: (COMBOS[a - ANNOUNCE].value(rules), -a))


class Level(ABC):
    """The shape every level shares: a forced action made at once; its call in the
    auction; in play, announcements first (the seat is asked again), then its card, with
    belot when the card allows."""

    def choose(self, observation: Observation) -> Action:
        if len(observation.legal_actions) == 1:  # forced: no decision to make
            return observation.legal_actions[0]
        if observation.phase == Phase.AUCTION:
            return self.call(observation)
        announce = announcement(observation)
        if announce is not None:
            return announce
        view = view_of(observation)
        return play(view, self.card(observation, view))

    @abstractmethod
    def call(self, observation: Observation) -> Action: ...

    @abstractmethod
    def card(self, observation: Observation, view: View) -> Card: ...
