"""The ``easy`` and ``normal`` levels: fixed rules over the seat's view, no search."""

from __future__ import annotations

from engine.actions import Action
from engine.cards import BEATS, NO_TRUMPS, POINTS, STRENGTH, SUIT_MASK, TRUMPS, Card, cards_of
from engine.observation import Observation

from .bidding import easy_call, normal_call
from .view import Level, View


class EasyBot(Level):
    """Plays the lowest legal card, bids only very strong plain hands, announces all."""

    def call(self, observation: Observation) -> Action:
        return easy_call(observation)

    def card(self, observation: Observation, view: View) -> Card:
        return view.lowest(view.legal)


class NormalBot(Level):
    """Reads the trick and the cards gone; bids and doubles from a hand evaluation."""

    def call(self, observation: Observation) -> Action:
        return normal_call(observation)

    def card(self, observation: Observation, view: View) -> Card:
        return normal_card(view, observation.declarer)


def normal_card(view: View, declarer: int | None) -> Card:
    """normal's card: lead sure winners, feed a winning partner, win cheaply or duck."""
    if view.legal & (view.legal - 1) == 0:
        return view.legal.bit_length() - 1
    if not view.trick:
        return _lead(view, declarer)
    k = view.contract
    points, strength = POINTS[k], STRENGTH[k]
    last = len(view.trick) == 3
    if view.partner_winning:
        # Partner's card holds if nothing of its suit out is higher (a ruff is a risk
        # normal takes; only hard reckons who is void).
        higher = BEATS[k][view.win_card] & SUIT_MASK[view.win_card >> 3]
        holds = last or not higher & view.others
        if holds:
            # Feed the fattest plain card, sparing a sure winner of a later trick.
            plain = view.legal & ~view.trumps or view.legal
            return max(cards_of(plain),
                       key=lambda c: (points[c] - 8 * view.is_master(c), -strength[c]))
        return view.lowest(view.legal)
    beating = view.beating()
    if not beating:
        return view.lowest(view.legal)
    if last:
        return view.weakest_winner(beating)
    masters = [c for c in cards_of(beating) if view.is_master(c)]
    if masters and not (1 << masters[0]) & view.trumps:
        return min(masters, key=lambda c: strength[c])
    table_points = sum(points[c] for c in view.trick)
    must = view.legal == beating
    if must or table_points >= 10 or masters:
        # Ruff or overtake with the weakest card that does it: keep the strong trumps.
        return view.weakest_winner(beating)
    return view.lowest(view.legal)


def _lead(view: View, declarer: int | None) -> Card:
    """Draw trumps when our side named them, else cash a sure winner, else lead low."""
    k = view.contract
    trumps = view.legal & TRUMPS[k]
    ours = declarer is not None and (declarer - view.seat) & 1 == 0
    if ours and trumps and k < NO_TRUMPS and view.others & TRUMPS[k]:
        top = max(cards_of(trumps), key=lambda c: STRENGTH[k][c])
        if view.is_master(top):
            return top
    masters = [c for c in cards_of(view.legal) if view.is_master(c)]
    plain_masters = [c for c in masters if not (1 << c) & TRUMPS[k]] or masters
    if plain_masters:
        return max(plain_masters, key=lambda c: (POINTS[k][c], STRENGTH[k][c]))
    return view.lowest(view.legal)
