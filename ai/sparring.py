"""An outside sparring partner for the arena: ``colver``, a public Contrée engine written
in Rust (issues #18 and #31), pinned in the dev extras (``pip install -e '.[dev]'``).

Its card numbers are ours renamed (suits ♠ ♥ ♦ ♣, ranks 7 8 9 J Q K 10 A), its calls
too (pass, 80..160 and capot by suit, coinche, surcoinche).  Colver is handed, at every
decision, the seat's own hand and, for the other seats, the cards they played plus a
deal of their hidden cards drawn from the observation alone
(:func:`ai.inference.infer_facts`: uniform but for the rules' facts), so whatever colver
does with them, it never sees a hidden card.  Its searches run for a time, not a number
of iterations (colver offers no other budget): its decisions are not repeatable.

* **Classic**: colver's smart IS-MCTS plays the cards of a suit contract of 80 for the
  taking team (the least Contrée knows), the tricks replayed in order; hard makes the
  calls, so that a duplicate deal compares card play.  Colver's rule book is ours under
  the house rules :data:`ai.arena.COLVER_RULES` (a test compares the cards each allows).
* **Coinche**, under the ``colver`` preset (the rules colver implements): colver's own
  agent bids and plays whole deals (:class:`ColverBot`).

A call or card of colver's that our rules forbid is an error, not a silent substitute.
"""

from __future__ import annotations

import random

import colver

from engine.actions import (
    CAPOT_LEVEL,
    COINCHE,
    PASS,
    POINT_BID,
    POINT_BID_END,
    SURCOINCHE,
    Action,
    action_name,
    point_bid,
)
from engine.cards import NO_TRUMPS, Card, Mask, card_name, cards_of
from engine.observation import Observation

from .hard import SAFETY, HardBot
from .inference import infer_facts, sample
from .normal import normal_card
from .points import is_point_auction
from .view import View

COLVER_SUIT = (3, 2, 1, 0)  # ours: clubs, diamonds, hearts, spades
COLVER_RANK = (0, 1, 2, 6, 3, 4, 5, 7)  # ours: 7 8 9 10 J Q K A
CONTRACT_VALUE = 80


def to_colver(card: Card) -> int:
    return COLVER_SUIT[card >> 3] * 8 + COLVER_RANK[card & 7]


FROM_COLVER = {to_colver(card): card for card in range(32)}


def colver_env(obs: Observation, rng: random.Random) -> colver.Env:
    """The deal so far as a colver environment, the seat to play (colver's rules allow
    every card ours do, under any house rules: it never refuses a card played)."""
    assert obs.contract is not None and obs.contract < NO_TRUMPS  # colver names a suit
    assert obs.declarer is not None
    env, plays = _dealt(obs, rng)
    env.set_contract(COLVER_SUIT[obs.contract], CONTRACT_VALUE, obs.declarer & 1, 0)
    env.set_phase_playing()
    env.smart_ismcts_init()
    for seat, card in plays:
        assert env.current_player() == seat and to_colver(card) in env.legal_actions()
        env.smart_ismcts_step(to_colver(card))
    assert env.current_player() == obs.seat
    return env


# Coinche: colver plays whole deals, its calls too, under the ``colver`` preset (whose
# rules colver implements).  Without its learned models (they are fetched from a model
# hub, out of reach here) its strongest agent is its information-set double-dummy search
# ("Dede") over worlds drawn uniformly but for the rules' facts, bidding with the rule
# bidder colver uses by default.
COLVER_BIDDER = "improved_v2"
PASS_, COINCHE_, SURCOINCHE_, CAPOT_ = 0, 41, 42, 37  # colver's call numbers


def call_to_colver(call: Action) -> int:
    """Our call as colver numbers it: pass, 80..160 by suit, capot by suit, coinche."""
    if call == PASS:
        return PASS_
    if call in (COINCHE, SURCOINCHE):
        return COINCHE_ if call == COINCHE else SURCOINCHE_
    level, strain = divmod(call - POINT_BID, 6)
    if strain >= NO_TRUMPS or level > CAPOT_LEVEL:
        raise ValueError(f"colver has no call {call!r}")
    if level == CAPOT_LEVEL:
        return CAPOT_ + COLVER_SUIT[strain]
    return 1 + 4 * level + COLVER_SUIT[strain]


CALL_FROM_COLVER = {call_to_colver(a): a for a in
                    (PASS, COINCHE, SURCOINCHE,
                     *(point_bid(level, s) for level in range(CAPOT_LEVEL + 1)
                       for s in range(4)))}


class ColverBot(HardBot):
    """colver at ``budget_s * SAFETY`` of wall time a decision (what hard gives its
    search).  In a Coinche deal, colver's own agent (:data:`COLVER_BIDDER` calls, IS-DD
    cards on uniform worlds) makes every call and plays every card: each decision
    rebuilds the deal in colver's terms from the observation alone (the seat's cards, the
    others' played cards and a deal of their hidden ones drawn from the rules' facts),
    replays the calls and cards so far and asks a fresh agent.  In classic, colver's
    smart IS-MCTS plays the cards and hard makes the calls."""

    def _ms(self) -> int:
        return max(1, round(self.budget_s * SAFETY * 1000))

    def _agent_action(self, obs: Observation) -> int:
        env, history = colver_deal(obs, self.rng)
        spec = (f'[bid]\nstrategy = "{COLVER_BIDDER}"\n[play]\nmethod = "isdd"\n'
                f'time_ms = {self._ms()}\n[worlds]\nsource = "uniform"\n')
        agent = colver.Agent(spec, seat=obs.seat, seed=self.rng.randrange(1 << 30))
        agent.init_deal(env)
        for action in history:
            agent.observe(env, action)
            env.step(action)
        assert env.current_player() == obs.seat
        return int(agent.decide(env)["action"])

    def call(self, observation: Observation) -> Action:
        if not is_point_auction(observation):
            return super().call(observation)
        if len(observation.legal_actions) == 1:
            return observation.legal_actions[0]
        call = CALL_FROM_COLVER[self._agent_action(observation)]
        if call not in observation.legal_actions:
            raise ValueError(f"colver called {action_name(call)}, which these rules "
                             "forbid: play it under the colver preset")
        return call

    def card(self, obs: Observation, view: View) -> Card:
        fallback = normal_card(view, obs.declarer)
        if view.legal & (view.legal - 1) == 0:
            return fallback
        if any(POINT_BID <= call < POINT_BID_END for _, call in obs.auction):
            choice = FROM_COLVER[self._agent_action(obs)]
        else:
            choice = FROM_COLVER[colver_env(obs, self.rng).action_smart_ismcts(self._ms())]
        if not view.legal >> choice & 1:
            raise ValueError(f"colver chose {card_name(choice)}, which these house rules "
                             "forbid: play it under ai.arena.COLVER_RULES")
        return choice


def colver_deal(obs: Observation, rng: random.Random) -> tuple[colver.Env, list[int]]:
    """The deal as dealt, in colver's terms (:func:`_dealt`), and colver's numbers of
    the actions so far."""
    env, plays = _dealt(obs, rng)
    history = [call_to_colver(call) for _, call in obs.auction]
    return env, history + [to_colver(card) for _, card in plays]


def _dealt(obs: Observation, rng: random.Random) -> tuple[colver.Env, list[tuple[int, Card]]]:
    """A colver environment at the deal's start, with the seat's own cards and the
    others' (the cards they played and a deal of their hidden ones drawn from what the
    seat knows); and the cards played so far, (seat, card) in order."""
    hands: list[Mask] = sample(infer_facts(obs), rng)
    hands[obs.seat] = obs.hand
    plays = [((leader + i) % 4, card) for leader, cards in (*obs.tricks, (obs.leader, obs.trick))
             for i, card in enumerate(cards)]
    for seat, card in plays:
        hands[seat] |= 1 << card
    env = colver.Env.deal_with_hands(obs.dealer, [[to_colver(c) for c in cards_of(hand)]
                                                  for hand in hands])
    return env, plays
