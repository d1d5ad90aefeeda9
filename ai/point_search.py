"""hard's calls in an auction of point bids (Coinche): every call valued on solved deals.

Deals consistent with the auction are drawn (:mod:`ai.inference`: a point bid makes its
strain's jack and nine likelier in the bidder's hand), each is solved open in every
strain hard may bid or has to defend (:class:`ai.solver.Solver`, from the eldest hand's
lead), and each legal call is scored on every deal as the rules score it
(:func:`ai.lead.deal_lead`): a bid as the final contract at its value, a pass as the
standing contract played as it is, a coinche and a surcoinche as that contract at their
multipliers.  The call worth most on average is made; all four come from the same solved
deals.  The strains searched are hard's best ones by normal's estimate
(:data:`HARD_STRAINS`) and the standing contract's.
"""

from __future__ import annotations

import random
import time
from dataclasses import dataclass

from engine.actions import COINCHE, PASS, SURCOINCHE, Action, contract_of, point_value
from engine.cards import Contract, Mask
from engine.observation import Observation
from engine.scoring import Tally

from .inference import infer, sample
from .lead import deal_lead, pairs_held
from .points import open_bids, prior_points, standing, team_estimate
from .solver import SearchTimeout, Solver, split

HARD_WORLDS = 24  # deals solved at most per call
HARD_STRAINS = 2  # strains searched besides the standing contract's
# The prior the solved deals are added to: as many deals as there are quantiles here,
# each giving our team normal's estimate (ai.points.prior_points) plus that many times
# PRIOR_SPREAD (the quartiles' middles of a normal law; PRIOR_SPREAD about the spread of
# a team's points around the estimate in the fitted deals).  Few deals solved (a busy
# machine, a short budget) then mean calls close to normal's, never a call on one deal.
PRIOR_QUANTILES = (-1.15, -0.32, 0.32, 1.15)
PRIOR_SPREAD = 25.0
# Points the takers make in an open deal and not at the table, where the defence does
# not see their cards (nor they the defence's): taken off every valued contract.
DECLARER_EDGE = 15


@dataclass(frozen=True, slots=True)
class World:
    """One sampled deal, solved open in each strain: team 0's contract points and the
    team that took every trick (if one did)."""

    hands: tuple[Mask, Mask, Mask, Mask]
    solved: dict[Contract, tuple[int, int | None]]


def hard_strains(obs: Observation) -> list[Contract]:
    """The strains hard searches: its best ones by normal's estimate, among those it
    may bid, and the standing contract's."""
    open_strains = {contract_of(a) for a in open_bids(obs)}
    best = sorted(open_strains, key=lambda k: -team_estimate(obs, k))[:HARD_STRAINS]
    now = standing(obs).strain
    return sorted(set(best) | ({now} if now is not None else set()))


def solve_worlds(obs: Observation, strains: list[Contract], rng: random.Random,
                 deadline: float) -> list[World]:
    """Deals consistent with the auction, each solved in every strain, until the
    deadline (at most :data:`HARD_WORLDS`)."""
    knowledge = infer(obs)
    leader = (obs.dealer + 1) % 4
    solvers = {k: Solver(k, obs.options, 8, deadline) for k in strains}
    worlds: list[World] = []
    while len(worlds) < HARD_WORLDS and time.perf_counter() < deadline:
        hands = sample(knowledge, rng)
        hands[obs.seat] = obs.hand
        solved = {}
        try:
            for k in strains:
                solved[k] = split(solvers[k].value(hands, [], leader),
                                  obs.options.card_total(k))
        except SearchTimeout:
            break
        worlds.append(World((hands[0], hands[1], hands[2], hands[3]), solved))
    return worlds


def prior_worlds(obs: Observation, strains: list[Contract], solved: list[World],
                 rng: random.Random) -> list[World]:
    """The prior's deals (:data:`PRIOR_QUANTILES`): the solved deals' hands (a deal drawn
    where none was solved), with normal's estimate spread instead of a search."""
    knowledge = infer(obs)
    team = obs.seat & 1
    worlds = []
    for i, z in enumerate(PRIOR_QUANTILES):
        if solved:
            hands = solved[i % len(solved)].hands
        else:
            drawn = sample(knowledge, rng)
            drawn[obs.seat] = obs.hand
            hands = (drawn[0], drawn[1], drawn[2], drawn[3])
        points: dict[Contract, tuple[int, int | None]] = {}
        for k in strains:
            total = obs.options.card_total(k)
            ours = min(total, max(0, round(prior_points(obs, k) + z * PRIOR_SPREAD)))
            points[k] = (ours if team == 0 else total - ours, None)
        worlds.append(World(hands, points))
    return worlds


def contract_lead(obs: Observation, world: World, bid: Action, declarer: int,
                  multiplier: int) -> float:
    """What the deal adds to the seat's team score minus the other's (card points) if
    ``bid`` by ``declarer`` at ``multiplier`` is played in this world."""
    strain = contract_of(bid)
    team0, valat = world.solved[strain]
    total = obs.options.card_total(strain)
    if valat is None:  # open play flatters the takers: take DECLARER_EDGE off them
        edge = DECLARER_EDGE if declarer & 1 == 0 else -DECLARER_EDGE
        team0 = min(total, max(0, team0 - edge))
    belots = [0, 0]
    for seat, hand in enumerate(world.hands):
        belots[seat & 1] += pairs_held(hand, obs.options.belot_cards[strain], set())
    tally = Tally(strain, declarer, multiplier, (team0, total - team0), (0, 0),
                  (belots[0], belots[1]), valat, point_value(bid), solo=valat == declarer & 1)
    return deal_lead(tally, obs.pool, obs.options, obs.seat & 1)


def call_values(obs: Observation, worlds: list[World]) -> dict[Action, float]:
    """Each call hard can value, with its mean lead over the solved worlds."""
    now = standing(obs)
    n = len(worlds)
    values: dict[Action, float] = {}
    searched = set(worlds[0].solved)
    for bid in open_bids(obs):
        if contract_of(bid) in searched:
            values[bid] = sum(contract_lead(obs, w, bid, obs.seat, 1) for w in worlds) / n
    if now.bid is None or now.declarer is None:
        values[PASS] = 0.0
        return values
    standing_bid, declarer = now.bid, now.declarer
    values[PASS] = sum(contract_lead(obs, w, standing_bid, declarer, now.multiplier)
                       for w in worlds) / n
    for call, multiplier in ((COINCHE, 2), (SURCOINCHE, obs.options.redouble_multiplier())):
        if call in obs.legal_actions:
            values[call] = sum(contract_lead(obs, w, standing_bid, declarer, multiplier)
                               for w in worlds) / n
    return values


def hard_point_call(obs: Observation, rng: random.Random, deadline: float) -> Action:
    """The call worth most over the deals drawn and solved before ``deadline`` and the
    prior's."""
    legal = obs.legal_actions
    if len(legal) == 1:
        return legal[0]
    strains = hard_strains(obs)
    solved = solve_worlds(obs, strains, rng, deadline)
    values = call_values(obs, solved + prior_worlds(obs, strains, solved, rng))
    return max(values, key=lambda a: (values[a], a == PASS))
