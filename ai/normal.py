"""The ``easy`` and ``normal`` levels: fixed rules over the seat's view, no search."""

from __future__ import annotations

from engine.actions import Action
from engine.cards import (
    BEATS,
    NO_TRUMPS,
    POINTS,
    STRENGTH,
    SUIT_MASK,
    TRUMPS,
    Card,
    cards_of,
    mask_of,
)
from engine.observation import Observation

from .bidding import easy_call, normal_call
from .points import easy_point_call, is_point_auction, normal_point_call
from .view import Level, View


class EasyBot(Level):
    """Plays the lowest legal card, bids only very strong plain hands (80 with a jack and
    two more trumps in point auctions), announces all."""

    def call(self, observation: Observation) -> Action:
        if is_point_auction(observation):
            return easy_point_call(observation)
        return easy_call(observation)

    def card(self, observation: Observation, view: View) -> Card:
        return view.lowest(view.legal)


class NormalBot(Level):
    """Reads the trick, the cards gone and the public voids; bids and doubles from a hand
    evaluation."""

    def call(self, observation: Observation) -> Action:
        if is_point_auction(observation):
            return normal_point_call(observation)
        return normal_call(observation)

    def card(self, observation: Observation, view: View) -> Card:
        return normal_card(view, observation.declarer)


def normal_card(view: View, declarer: int | None) -> Card:
    """normal's card: lead sure winners, feed a partner who will win, else win cheaply."""
    if view.legal & (view.legal - 1) == 0:
        return view.legal.bit_length() - 1
    if not view.trick:
        return _lead(view, declarer)
    if view.partner_winning:
        holds = _holds(view, view.win_card, _opponents_after(view))
        return _feed(view) if holds else view.lowest(view.legal)
    beating = view.beating()
    if not beating:
        return view.lowest(view.legal)
    # Take the trick with the weakest card that does it, ruffing if need be: this keeps
    # the strong trumps (preferring a sure winner, or letting cheap tricks go, measured
    # worse on the arena).
    return view.weakest_winner(beating)


def _opponents_after(view: View) -> list[int]:
    """The opponents still to play to the current trick after this seat."""
    return [(view.seat + i) % 4 for i in range(1, 4 - len(view.trick)) if i & 1]


def _holds(view: View, card: Card, seats: list[int]) -> bool:
    """Whether ``card``, winning now, still wins once the opponents ``seats`` have played.

    From what is public: no higher card of its suit is out (unless they all showed out
    of the suit), and, while trumps are out, none of them is known to be void in it.
    """
    if not seats:
        return True
    k = view.contract
    suit = card >> 3
    void = all(view.voids[s] >> suit & 1 for s in seats)
    if BEATS[k][card] & SUIT_MASK[suit] & view.others and not void:
        return False
    if k < NO_TRUMPS and suit != k and view.others & SUIT_MASK[k]:
        exhausted = not view.others & SUIT_MASK[suit]
        if exhausted or any(view.voids[s] >> suit & 1 for s in seats):
            return False
    return True


def _feed(view: View) -> Card:
    """The fattest plain card for a partner who wins the trick, sparing sure winners."""
    k = view.contract
    plain = view.legal & ~view.trumps or view.legal
    return max(cards_of(plain),
               key=lambda c: (not view.is_master(c), POINTS[k][c], -STRENGTH[k][c]))


def _lead(view: View, declarer: int | None) -> Card:
    """Draw trumps when our side named them, else cash a sure winner, else lead a short
    suit to ruff later, else lead low."""
    k = view.contract
    trumps = view.legal & TRUMPS[k]
    ours = declarer is not None and (declarer - view.seat) & 1 == 0
    if ours and trumps and k < NO_TRUMPS and view.others & TRUMPS[k]:
        top = max(cards_of(trumps), key=lambda c: STRENGTH[k][c])
        if view.is_master(top):
            return top
    after = _opponents_after(view)
    masters = [c for c in cards_of(view.legal) if _holds(view, c, after)]
    plain_masters = [c for c in masters if not (1 << c) & TRUMPS[k]] or masters
    if plain_masters:
        return max(plain_masters, key=lambda c: (POINTS[k][c], STRENGTH[k][c]))
    if trumps and k < NO_TRUMPS:
        singles = [c for c in cards_of(view.legal & ~trumps)
                   if not view.legal & ~(1 << c) & SUIT_MASK[c >> 3] and POINTS[k][c] < 10]
        if singles:
            return view.lowest(mask_of(singles))
    return view.lowest(view.legal)
