"""An outside sparring partner for the arena: the information-set Monte-Carlo tree search
of ``colver``, a public Contrée engine written in Rust (issue #18).

Classic Belote and Contrée play their cards by the same rules, so colver can play our
classic deals once a deal is put in its terms: its card numbers (suits ♠ ♥ ♦ ♣, ranks
7 8 9 J Q K 10 A), a suit contract of 80 for the taking team (the least Contrée knows;
our takers need more than half of the points), the tricks replayed in order.  Colver's
search keeps its own beliefs from the cards it is shown (``smart_ismcts_step``); the
hands it is handed are the seat's own and, for the other seats, the cards they played
plus a deal of their hidden cards drawn from the observation alone
(:func:`ai.inference.infer_facts`: uniform but for the rules' facts), so whatever colver
does with them, it never sees a hidden card.

The search runs for a time, not a number of iterations (colver offers no other budget):
its cards are not repeatable.  Colver's rule book is ours under the house rules
:data:`ai.arena.COLVER_RULES` (a test compares the cards each allows); under others it
allows more than ours, and a card of colver's that ours forbid is an error, not a silent
substitute.  Auction calls are hard's, as the arena's ``pimc`` does, so that a duplicate
deal compares card play.
``pip install -e '.[dev]'`` installs colver.
"""

from __future__ import annotations

import random

import colver

from engine.cards import NO_TRUMPS, Card, Mask, card_name, cards_of
from engine.observation import Observation

from .hard import SAFETY, HardBot
from .inference import infer_facts, sample
from .normal import normal_card
from .view import View

COLVER_SUIT = (3, 2, 1, 0)  # ours: clubs, diamonds, hearts, spades
COLVER_RANK = (0, 1, 2, 6, 3, 4, 5, 7)  # ours: 7 8 9 10 J Q K A
CONTRACT_VALUE = 80


def to_colver(card: Card) -> int:
    return COLVER_SUIT[card >> 3] * 8 + COLVER_RANK[card & 7]


FROM_COLVER = {to_colver(card): card for card in range(32)}


class ColverBot(HardBot):
    """Colver's smart IS-MCTS for cards, for ``budget_s * SAFETY`` of wall time (what
    hard gives its sampling); hard's calls and announcements."""

    def card(self, obs: Observation, view: View) -> Card:
        fallback = normal_card(view, obs.declarer)
        if view.legal & (view.legal - 1) == 0:
            return fallback
        env = colver_env(obs, self.rng)
        choice = FROM_COLVER[env.action_smart_ismcts(max(1, round(self.budget_s * SAFETY
                                                                   * 1000)))]
        if not view.legal >> choice & 1:
            raise ValueError(f"colver chose {card_name(choice)}, which these house rules "
                             "forbid: play it under ai.arena.COLVER_RULES")
        return choice


def colver_env(obs: Observation, rng: random.Random) -> colver.Env:
    """The deal so far as a colver environment, the seat to play (colver's rules allow
    every card ours do, under any house rules: it never refuses a card played)."""
    assert obs.contract is not None and obs.contract < NO_TRUMPS  # colver names a suit
    assert obs.declarer is not None
    knowledge = infer_facts(obs)
    hands: list[Mask] = sample(knowledge, rng)
    hands[obs.seat] = obs.hand
    plays = [((leader + i) % 4, card) for leader, cards in (*obs.tricks, (obs.leader, obs.trick))
             for i, card in enumerate(cards)]
    for seat, card in plays:
        hands[seat] |= 1 << card
    env = colver.Env.deal_with_hands(obs.dealer, [[to_colver(c) for c in cards_of(hand)]
                                                  for hand in hands])
    env.set_contract(COLVER_SUIT[obs.contract], CONTRACT_VALUE, obs.declarer & 1, 0)
    env.set_phase_playing()
    env.smart_ismcts_init()
    for seat, card in plays:
        assert env.current_player() == seat and to_colver(card) in env.legal_actions()
        env.smart_ismcts_step(to_colver(card))
    assert env.current_player() == obs.seat
    return env
