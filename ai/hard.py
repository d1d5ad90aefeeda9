"""The ``hard`` level: sampled deals consistent with all it knows, each solved open.

The deals are drawn as the rules allow (ai/inference.py), then kept in proportion to how
well they explain the cards the others chose (ai/likelihood.py).

For each sample the solver gives, for every legal card, the points team 0 ends with
under best play and whether a team takes every trick; those are turned into what the
deal would add to each team's score (contract made or failed, rounding, declarations,
belots, valat, doubling) and averaged, so the card chosen is the best for the contract,
not the one that grabs most points.

With the compiled search (ai/_solver.c) every sample is solved to the end of the deal
from the second trick, and :data:`FIRST_TRICK_HORIZON` tricks ahead (the rest
estimated) at the first; without it, only from :data:`EXACT_TRICKS` tricks left, and
earlier positions are searched :data:`HORIZON` tricks ahead and estimated beyond.
"""

from __future__ import annotations

import random
import time

from engine.actions import Action
from engine.cards import (
    KING,
    NO_TRUMPS,
    POINTS,
    QUEEN,
    RANK_MASK,
    STRENGTH,
    Card,
    Mask,
    cards_of,
)
from engine.deal import trick_state
from engine.declarations import RUN_KINDS, DeclarationKind, combo_id, resolve
from engine.observation import Observation
from engine.scoring import Tally

from .bidding import hard_call
from .inference import Knowledge, infer
from .lead import deal_lead, pairs_held
from .likelihood import PlayModel, likely_deal
from .normal import normal_card
from .point_search import hard_point_call
from .points import is_point_auction
from .solver import NATIVE, SearchTimeout, Solver, distinct_moves, split
from .view import Level, View

DEFAULT_BUDGET_S = 0.24
# Deals solved at most per card; the time cap stops the first tricks' sampling sooner.
WORLDS = 80
# Without the compiled search (ai/_solver.c, see ai/solver.py) whole deals cost seconds:
EXACT_TRICKS = 5  # solve to the end when at most this many tricks are left ...
HORIZON = 2  # ... else search this many tricks ahead and estimate the rest,
HORIZON_SAMPLES = 6  # on fewer samples: each costs more and the estimate blurs them anyway
# With the compiled search, the first trick's searches in a suit contract complete this
# many tricks and estimate the rest (0: whole deals): a whole deal from the first trick
# costs 50 to 200 ms, more than the 96 ms a decision searches, four tricks about 5
# (bench/ai_solver.py), so that the first card comes from a dozen deals and more
# instead of one or none.  Not in no trumps or all trumps: measured (docs/bots.md),
# the estimate lost there what the deals gained.
FIRST_TRICK_HORIZON = 4
# Share of the budget by which a decision's searching ends, the look-ahead's rescue
# included: the rest absorbs the bookkeeping and a busy machine descheduling the
# process, so that the decision stays under the cap.
SAFETY = 0.4
# The share of that held back for the look-ahead: when no whole deal is solved by
# (SAFETY - RESCUE) of the budget (rare, on the first trick), the look-ahead gets the
# rest, so that the card still comes from samples; once one is, the sampling of whole
# deals goes on to the end.
RESCUE = 0.1
_SHORTEST = {kind: n for n, kind in RUN_KINDS.items()}  # cards in the shortest run of a kind


class HardBot(Level):
    """Deterministic for a seed as long as the time cap does not cut the sampling."""

    def __init__(self, seed: int | None = None, budget_s: float = DEFAULT_BUDGET_S) -> None:
        self.rng = random.Random(seed)
        self.budget_s = budget_s

    def call(self, observation: Observation) -> Action:
        if is_point_auction(observation):
            # Its solving ends at the card's first deadline, (SAFETY - RESCUE): the rest
            # is for what follows it (the prior, every call valued) and for the overrun
            # of fresh solvers, whose caches' first touches slow their look at the clock.
            deadline = time.perf_counter() + self.budget_s * (SAFETY - RESCUE)
            return hard_point_call(observation, self.rng, deadline)
        return hard_call(observation)

    def card(self, obs: Observation, view: View) -> Card:
        start = time.perf_counter()
        fallback = normal_card(view, obs.declarer)
        if _one_choice(view, obs.options.points[view.contract]):
            return fallback  # every sample would tie, and a tie goes to this card
        knowledge = infer(obs)
        model = PlayModel(obs)
        scorer = Scorer(obs)
        deadline = start + self.budget_s * SAFETY
        done = 0
        if NATIVE and FIRST_TRICK_HORIZON and not obs.tricks and view.contract < NO_TRUMPS:
            solver = Solver(view.contract, obs.options, FIRST_TRICK_HORIZON, deadline,
                            reuse=True)
            totals, done = self._average(obs, view, knowledge, model, scorer, solver,
                                         WORLDS)
        elif NATIVE or 8 - len(obs.tricks) <= EXACT_TRICKS:
            solver = Solver(view.contract, obs.options, 8,
                            deadline - self.budget_s * RESCUE, reuse=True)
            totals, done = self._average(obs, view, knowledge, model, scorer, solver,
                                         WORLDS, deadline)
        if not done:  # too early for whole deals, or none solved in time: look ahead
            solver = Solver(view.contract, obs.options, HORIZON, deadline, reuse=True)
            totals, done = self._average(obs, view, knowledge, model, scorer, solver,
                                         HORIZON_SAMPLES)
        if not done:
            return fallback
        k = view.contract
        return max(totals, key=lambda c: (totals[c], c == fallback, -POINTS[k][c],
                                          -STRENGTH[k][c]))

    def _average(
        self, obs: Observation, view: View, knowledge: Knowledge, model: PlayModel | None,
        scorer: Scorer, solver: Solver, most: int, then: float | None = None,
    ) -> tuple[dict[Card, float], int]:
        """Each legal card's total score over the samples solved before the solver's
        deadline (at most ``most``), and their number; once one is solved, the deadline
        moves to ``then`` if given.  No deal is drawn that would end past the deadline
        if it took as long as the last one drawn."""
        totals = dict.fromkeys(cards_of(view.legal), 0.0)
        done = 0
        drawing = 0.0  # how long the last deal took to draw
        assert solver.deadline is not None
        while done < most and (now := time.perf_counter()) + drawing < solver.deadline:
            hands = likely_deal(knowledge, model, self.rng)
            drawing = time.perf_counter() - now
            hands[obs.seat] = obs.hand
            try:
                values = solver.move_values(hands, obs.trick, obs.leader, scorer.taken)
            except SearchTimeout:
                break
            for card, value in values.items():
                totals[card] += scorer.score(value, hands)
            done += 1
            if then is not None:
                solver.deadline = then
        return totals, done


def _one_choice(view: View, points: tuple[int, ...]) -> bool:
    """Whether the legal cards are all alike (one card, or cards of one suit with the
    same points and no card still in play between them): whatever the hidden hands,
    the search would value them the same."""
    in_play = view.hand | view.others | sum(1 << card for card in view.trick)
    return len(distinct_moves(view.legal, in_play, view.contract, points)) == 1


class Scorer:
    """Maps the solver's value of a sampled deal to our score lead for it.

    ``extra``: announcements (seat, combo id) to count on top of the public ones, for the
    review (ai/review.py) to value an announcement before it is made.
    """

    def __init__(self, obs: Observation, extra: tuple[tuple[int, int], ...] = ()) -> None:
        assert obs.contract is not None and obs.declarer is not None
        self.obs = obs
        self.declarer = obs.declarer
        self.contract = obs.contract
        self.team = obs.seat & 1
        done = [0, 0]
        self.taken = 0  # bit t: team t has taken a trick
        for leader, cards in obs.tricks:
            win_seat, _, points = trick_state(cards, leader, self.contract,
                                              obs.options.points[self.contract])
            done[win_seat & 1] += points
            self.taken |= 1 << (win_seat & 1)
        self.done = done
        self.total = obs.options.card_total(self.contract)
        self.belot_cards = obs.options.belot_cards[self.contract]
        self.rest = self.total - done[0] - done[1]
        self.declarations = _declarations(obs, extra)
        self.belots = [0, 0]
        for seat, _suit in obs.belots:
            self.belots[seat & 1] += 1
        self.announced_suits = {suit for _, suit in obs.belots}

    def score(self, value: int, hands: list[Mask], forgo: int | None = None) -> float:
        """What the deal adds to our score minus theirs, in card points; ``forgo``: a
        trump suit whose belot the seat to move gives up (the review values that)."""
        team0_rest, valat = split(value, self.rest)
        team0 = self.done[0] + team0_rest
        card_points = (team0, self.total - team0)
        belots = list(self.belots)
        announced = self.announced_suits if forgo is None else self.announced_suits | {forgo}
        for seat, hand in enumerate(hands):
            belots[seat & 1] += pairs_held(hand, self.belot_cards, announced)
        tally = Tally(self.contract, self.declarer, self.obs.multiplier, card_points,
                      self.declarations, (belots[0], belots[1]), valat,
                      value=self.obs.value or 0, solo=valat == self.declarer & 1)
        return deal_lead(tally, self.obs.pool, self.obs.options, self.team)


def _declarations(obs: Observation, extra: tuple[tuple[int, int], ...] = ()
                  ) -> tuple[int, int]:
    """The declaration points each team will score, from what is public to this seat
    (and ``extra``, announcements (seat, combo id) not made yet).

    A hidden run is judged by its kind alone; it stands in as a run of that length topped
    by a queen, the middle of the possible tops.  A hidden carré of unknown rank (Q, K, 10
    or A: its value does not tell them apart) stands in as kings.
    """
    rules = None if obs.contract is None else obs.options.declarations_in(obs.contract)
    if rules is None or (not obs.announcements and not extra):
        return 0, 0
    announced = []
    for a in obs.announcements:
        if a.cards is not None:
            combo = combo_id(a.cards)
        elif a.kind is DeclarationKind.CARRE:
            combo = combo_id(RANK_MASK[KING if a.rank is None else a.rank])
        else:
            length = _SHORTEST[a.kind]
            combo = combo_id(((1 << length) - 1) << (QUEEN + 1 - length))
        announced.append((a.seat, combo))
    announced += extra
    trump = obs.contract if obs.contract is not None and obs.contract < NO_TRUMPS else None
    points, _ = resolve(announced, trump, rules)
    return points[0], points[1]
