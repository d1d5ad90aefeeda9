"""Calls of an auction of point bids (Coinche, docs/COINCHE.md §4), for every level.

A point bid names a value (80..160, capot) and a strain; the partnership that makes the
last one must take that many points.  Every level reads the auction the same way
(:func:`standing`) and values a contract as the points its team would take:

* ``easy`` opens 80 in a suit with its jack and two more trumps, and never coinches;
* ``normal`` estimates the points its team takes in each strain from its own hand
  (:func:`hand_points`, weights fitted by simulation: ``ai/fit_point_weights.py``),
  reads its partner's bid as that many points from an average hand, and bids the
  highest value the estimate reaches; it coinches a contract its hand says will fail;
* ``hard`` values every call on solved deals (:mod:`ai.point_search`).

Générale (the declarer alone takes every trick) is never bid: a solved deal does not
say which partner took the tricks.
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.actions import (
    CAPOT_LEVEL,
    COINCHE,
    PASS,
    POINT_BID,
    POINT_BID_END,
    POINT_VALUES,
    SURCOINCHE,
    Action,
    contract_of,
    point_bid,
    point_value,
)
from engine.cards import (
    ACE,
    ALL_TRUMPS,
    JACK,
    KING,
    NINE,
    NO_TRUMPS,
    QUEEN,
    RANK_MASK,
    SUIT_MASK,
    TEN,
    Contract,
    Mask,
)
from engine.observation import Observation
from engine.options import Options

from .lead import pairs_held

STRAINS = 6
# normal: the points a hand's features add to its team's expected contract points, per
# strain kind, fitted on solved random deals (ai/fit_point_weights.py): a suit contract
# by (trump J, 9, A, 10, other trumps, side aces, side tens, side kings, voids,
# singletons); no trumps by (aces, tens, kings, queens, longest suit); all trumps by
# (jacks, nines, aces, tens, kings), set by hand (not fitted yet).  The intercept is an
# average partner's share.
SUIT_WEIGHTS = (40.0, 20.2, 14.5, 15.0, 11.4, 14.8, 3.4, 0.8, 8.6, -6.7)
SUIT_BASE = 36.5
NT_WEIGHTS = (26.6, 7.9, 2.7, -1.2, 3.4)
NT_BASE = 37.6
AT_WEIGHTS = (16.0, 10.0, 4.0, 2.0, 1.0)
AT_BASE = 40.0
BELOTE = 20  # a belote counts toward the contract (COINCHE.md §6.1)
# normal bids the highest value its estimate passes by this much: a contract failed by a
# point costs four times its value more than one just made, so the bid must be well
# under the expected points to be worth it.
NORMAL_MARGIN = 30
# What an opponent's bid is read to promise beyond its value (hard's prior): normal's own
# margin.  10 (other players bid closer to what they expect) was measured worse against
# normal, -3.5 [-41.8, +34.8] a deal against +36.4 [+15.9, +56.9], and no better against
# colver (docs/bots.md).
OPPONENT_MARGIN = 30
# normal coinches when its hand is worth this much more than an average one in the
# takers' strain: a bid assumes an average defence, and is NORMAL_MARGIN under the
# takers' expectation.
COINCHE_EXCESS = 50
SURCOINCHE_MARGIN = 30  # ... and surcoinches when it beats the contract by this much
EASY_TRUMPS = 3  # easy opens with the jack and this many trumps


@dataclass(frozen=True, slots=True)
class Standing:
    """The auction as it stands: the last bid (if any), who made it, coinche level."""

    bid: Action | None
    declarer: int | None
    multiplier: int

    @property
    def value(self) -> int:
        return 0 if self.bid is None else point_value(self.bid)

    @property
    def strain(self) -> Contract | None:
        return None if self.bid is None else contract_of(self.bid)


def is_point_auction(obs: Observation) -> bool:
    """Whether the seat is to call in an auction of point bids (read off its legal
    calls: with a pass alone open, a forced call, :class:`ai.view.Level` makes it)."""
    return any(a >= POINT_BID for a in obs.legal_actions)


def standing(obs: Observation) -> Standing:
    """The last point bid of the auction, its bidder and its multiplier."""
    bid = None
    declarer = None
    for seat, call in obs.auction:
        if POINT_BID <= call < POINT_BID_END:
            bid, declarer = call, seat
    return Standing(bid, declarer, obs.multiplier)


def open_bids(obs: Observation) -> list[Action]:
    """The legal point bids up to capot (générale is never bid), lowest value first."""
    return sorted((a for a in obs.legal_actions if POINT_BID <= a < POINT_BID_END
                   and (a - POINT_BID) // STRAINS <= CAPOT_LEVEL), key=point_value)


def _count(cards: Mask, rank: int, within: Mask = (1 << 32) - 1) -> int:
    return (cards & RANK_MASK[rank] & within).bit_count()


def features(cards: Mask, strain: Contract) -> tuple[int, ...]:
    """The traits of a hand that :data:`SUIT_WEIGHTS` (and the others) weigh."""
    if strain == NO_TRUMPS:
        longest = max((cards & SUIT_MASK[s]).bit_count() for s in range(4))
        return (_count(cards, ACE), _count(cards, TEN), _count(cards, KING),
                _count(cards, QUEEN), longest)
    if strain == ALL_TRUMPS:
        return (_count(cards, JACK), _count(cards, NINE), _count(cards, ACE),
                _count(cards, TEN), _count(cards, KING))
    trumps = SUIT_MASK[strain]
    side = ~trumps
    lengths = [(cards & SUIT_MASK[s]).bit_count() for s in range(4) if s != strain]
    top = RANK_MASK[JACK] | RANK_MASK[NINE] | RANK_MASK[ACE] | RANK_MASK[TEN]
    return (_count(cards, JACK, trumps), _count(cards, NINE, trumps),
            _count(cards, ACE, trumps), _count(cards, TEN, trumps),
            (cards & trumps & ~top).bit_count(), _count(cards, ACE, side),
            _count(cards, TEN, side), _count(cards, KING, side),
            sum(1 for n in lengths if n == 0), sum(1 for n in lengths if n == 1))


def _weights(strain: Contract) -> tuple[float, tuple[float, ...]]:
    if strain == NO_TRUMPS:
        return NT_BASE, NT_WEIGHTS
    if strain == ALL_TRUMPS:
        return AT_BASE, AT_WEIGHTS
    return SUIT_BASE, SUIT_WEIGHTS


def hand_points(cards: Mask, strain: Contract, options: Options) -> float:
    """normal's estimate of the contract points (cards, last trick, belote) its team
    takes in ``strain`` with an average partner, from the hand alone."""
    base, weights = _weights(strain)
    value = base + sum(w * f for w, f in zip(weights, features(cards, strain), strict=True))
    return value + BELOTE * pairs_held(cards, options.belot_cards[strain], set())


def average_points(strain: Contract) -> float:
    """What :func:`hand_points` gives an average hand: the part of a partner's bid that
    its hand shows beyond the average (the features' means, eight cards of 32)."""
    base, weights = _weights(strain)
    if strain == NO_TRUMPS:
        means: tuple[float, ...] = (1.0, 1.0, 1.0, 1.0, 3.3)
    elif strain == ALL_TRUMPS:
        means = (1.0, 1.0, 1.0, 1.0, 1.0)
    else:
        means = (0.25, 0.25, 0.25, 0.25, 1.0, 0.75, 0.75, 0.75, 0.21, 0.79)
    return base + sum(w * m for w, m in zip(weights, means, strict=True))


def team_estimate(obs: Observation, strain: Contract) -> float:
    """normal's estimate of its team's contract points in ``strain``: its hand's, plus
    what its partner's bids in the strain showed beyond an average hand.

    A partner's bid before any of ours in the strain shows its value and the margin
    normal leaves, less an average hand; a raise of our bid shows what it adds to it
    (the raise), so that two partners never count each other's cards twice."""
    own = hand_points(obs.hand, strain, obs.options)
    partner = (obs.seat + 2) % 4
    ours: int | None = None  # our last bid in the strain so far
    shown: float | None = None  # the most the partner showed beyond an average hand
    for seat, call in obs.auction:
        if not (POINT_BID <= call < POINT_BID_END and contract_of(call) == strain):
            continue
        if seat == obs.seat:
            ours = point_value(call)
        elif seat == partner:
            value = point_value(call)
            beyond = value + NORMAL_MARGIN - average_points(strain) if ours is None \
                else value - ours
            shown = beyond if shown is None else max(shown, beyond)
    return own if shown is None else own + max(0.0, shown)


def prior_points(obs: Observation, strain: Contract) -> float:
    """normal's estimate of its team's contract points in ``strain``, also where the
    opponents bid it: then what their bid says (its value and :data:`OPPONENT_MARGIN`),
    less what our hand holds beyond an average one."""
    now = standing(obs)
    if now.strain == strain and now.declarer is not None \
            and (now.declarer - obs.seat) & 1:
        beyond = hand_points(obs.hand, strain, obs.options) - average_points(strain)
        return obs.options.card_total(strain) - (now.value + OPPONENT_MARGIN - beyond)
    return team_estimate(obs, strain)


def _highest_bid(obs: Observation, strain: Contract, points: float) -> Action | None:
    """The highest open bid in ``strain`` that ``points`` reach (capot: never from an
    estimate)."""
    best = None
    for level, value in enumerate(POINT_VALUES):
        if value <= points:
            bid = point_bid(level, strain)
            if bid in obs.legal_actions:
                best = bid
    return best


def normal_point_call(obs: Observation) -> Action:
    """Bid the highest value the best strain's estimate reaches, above the standing bid;
    else coinche a contract the hand says will fail, surcoinche one it says is made
    comfortably, or pass."""
    legal = obs.legal_actions
    now = standing(obs)
    if SURCOINCHE in legal and now.strain is not None \
            and team_estimate(obs, now.strain) >= now.value + SURCOINCHE_MARGIN:
        return SURCOINCHE
    strains = {contract_of(a) for a in open_bids(obs)}
    bids = [(team_estimate(obs, k) - NORMAL_MARGIN, k) for k in strains]
    for points, strain in sorted(bids, reverse=True):
        bid = _highest_bid(obs, strain, points)
        if bid is not None:
            return bid
    if COINCHE in legal and now.strain is not None \
            and hand_points(obs.hand, now.strain, obs.options) \
            - average_points(now.strain) >= COINCHE_EXCESS:
        return COINCHE
    return PASS


def easy_point_call(obs: Observation) -> Action:
    """Open 80 in a suit holding its jack and two more trumps; else pass."""
    if standing(obs).bid is not None:
        return PASS
    for suit in range(4):
        trumps = obs.hand & SUIT_MASK[suit]
        bid = point_bid(0, suit)
        if trumps & RANK_MASK[JACK] and trumps.bit_count() >= EASY_TRUMPS \
                and bid in obs.legal_actions:
            return bid
    return PASS
