"""The review of a finished match: what each bid, announcement, belot and card cost.

Every decision of every seat is judged twice (docs/analysis.md):

1. *Informed*, from that seat's :class:`~engine.observation.Observation` alone: the hard
   bot's inference (:func:`ai.inference.infer`) and sampling of the hidden hands (deals
   drawn likelier as they explain the others' plays, :mod:`ai.likelihood`), each sampled
   deal solved exactly (:class:`ai.solver.Solver`) and scored like the deal really is
   (:class:`ai.hard.Scorer`: contract made or failed, rounding, doubling, declarations,
   belots, valat, the hanging pool).  A call is valued by finishing the auction in each
   sampled deal with the hard bot's own calls (in an auction of point bids, Coinche's,
   normal's: :func:`finishing_call`) and solving the contract that results; a coinche
   or surcoinche like any other call.
   Each legal choice gets the mean over the samples, the same samples for every choice
   (paired); its loss is the best choice's value minus the one played (a bid's: measured
   on other deals than those that chose the best, see :meth:`_Judge.bid_loss`), with its
   margin (:class:`Estimate`): the grade is the class of ``loss - margin``, and a
   decision whose grade is still open gets more samples.
2. *In hindsight* (cards only): the same solver and scoring on the true hands.

Values are the deal's score lead of the acting seat's team (its score minus the other
team's), counted in card points as the hard bot and the arena count, and written in the
score sheet's match points (card points over ``card_scale``).  Forced moves (one legal
choice) are not decisions and are not listed.

Pure: no I/O, deterministic for a seed (each decision draws from its own generator).
"""

from __future__ import annotations

import math
import random
import statistics
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from engine.actions import (
    ANNOUNCE,
    BELOT,
    Action,
    action_name,
    is_announce,
    is_call,
)
from engine.cards import FULL_DECK, NO_TRUMPS, Card, Mask, card_name, cards_of, parse_card
from engine.deal import Deal, Phase
from engine.declarations import COMBOS, decompositions, resolve
from engine.match import Match
from engine.observation import Observation
from engine.options import Options
from engine.record import read_action, read_options, replay
from engine.scoring import Tally

from .bidding import hard_call
from .hard import Scorer
from .inference import infer, weighted_pick
from .lead import deal_lead, pairs_held
from .likelihood import PlayModel, likely_deal
from .points import is_point_auction, normal_point_call
from .solver import Solver, split

Grade = Literal["good", "inaccuracy", "mistake", "blunder"]
Kind = Literal["bid", "announce", "belot", "card"]
KINDS: tuple[Kind, ...] = ("bid", "announce", "belot", "card")

DEFAULT_SAMPLES = 4
MORE_SAMPLES = 3  # a play decision whose grade is still open: up to 3x the samples
HELD_OUT = 3  # a call's loss is measured on 3x as many decks as chose the best call
# A grade is the class of the loss's lower bound, loss - CONFIDENCE standard errors of
# the paired differences (docs/analysis.md, "Uncertainty"): a loss within its own noise
# of a threshold does not reach it.
CONFIDENCE = 2.0
UNIT = "match_points"
# Loss thresholds (inaccuracy, mistake, blunder; card points of the deal's score lead,
# the result states them in the variant's match points), from the distributions measured
# on bot matches (docs/analysis.md): at or above each, the decision gets the grade.  A
# call is judged over whole deals still to be dealt and played, so its values spread far
# wider than a card's: its thresholds are wider too.
THRESHOLDS: dict[str, tuple[float, float, float]] = {
    "card": (10.0, 30.0, 80.0),
    "belot": (10.0, 30.0, 80.0),
    "announce": (10.0, 30.0, 80.0),
    "bid": (100.0, 200.0, 300.0),
}
NO_ANNOUNCEMENT = "no announcement"  # the choice of not announcing (any more)
MOST_BIDS = 8  # bid choices listed: the best ones, and the one played
COSTLIEST = 5


@dataclass(frozen=True, slots=True)
class Choice:
    action: str
    value: float
    hindsight: float | None


@dataclass(frozen=True, slots=True)
class Decision:
    """One judged decision; values in match points (docs/analysis.md, "The result")."""

    deal: int
    step: int
    seat: int
    kind: Kind
    played: str
    best: str
    loss: float
    margin: float | None  # CONFIDENCE standard errors of the loss; None: not measured
    worlds: int  # the sampled deals the loss was measured on
    grade: Grade
    hindsight_best: str | None
    hindsight_loss: float | None
    choices: tuple[Choice, ...]


@dataclass(frozen=True, slots=True)
class SeatSummary:
    seat: int
    decisions: int
    mean_loss: float
    counts: dict[str, int]
    costliest: tuple[tuple[int, int], ...]


@dataclass(frozen=True, slots=True)
class MatchReview:
    seed: int
    samples: int
    thresholds: dict[str, tuple[float, float, float]]  # in match points
    decisions: tuple[Decision, ...]
    seats: tuple[SeatSummary, ...]


@dataclass(frozen=True, slots=True)
class _Moment:
    """A decision to judge, captured while replaying: what the seat saw, the truth."""

    deal: int
    step: int
    kind: Kind
    obs: Observation
    action: Action  # the engine action taken (for announce: a card means none)
    hands: tuple[Mask, Mask, Mask, Mask]  # the true hands


def grade_of(kind: str, loss: float) -> Grade:
    """The class of a loss in card points, or of its lower bound (thresholds justified in
    docs/analysis.md)."""
    inaccuracy, mistake, blunder = THRESHOLDS[kind]
    if loss >= blunder:
        return "blunder"
    if loss >= mistake:
        return "mistake"
    if loss >= inaccuracy:
        return "inaccuracy"
    return "good"


@dataclass(frozen=True, slots=True)
class Estimate:
    """A decision's loss (card points) as measured on ``worlds`` sampled deals, with its
    uncertainty: ``margin`` is CONFIDENCE standard errors of the paired differences (each
    deal valued for both choices), None if nothing was measured."""

    means: dict[str, float]  # each choice's mean value (play decisions)
    best: str
    loss: float
    margin: float | None
    worlds: int
    gap: float = 0.0  # the mean advantage measured: the best's, or the runner-up's (< 0)

    @classmethod
    def paired(cls, series: Mapping[str, Sequence[float]], played: str) -> Estimate:
        """From each choice's value in the same worlds: the best mean (ties to the choice
        made) and its advantage over the choice made; if that is the choice made, the
        margin is the runner-up's (how sure the review is that nothing did better)."""
        n = len(series[played])
        means = {a: math.fsum(v) / n for a, v in series.items()}
        best = min(means, key=lambda a: (-means[a], a != played, a))  # the listed order's
        other = best if best != played else max(
            (a for a in means if a != played), key=lambda a: means[a], default=None)
        if other is None:
            return cls(means, played, 0.0, 0.0, n)
        diffs = [x - y for x, y in zip(series[other], series[played], strict=True)]
        gap = means[other] - means[played]
        return cls(means, best, max(0.0, gap), _margin(diffs), n, gap)

    @classmethod
    def of_gains(cls, gains: Sequence[float], best: str, played: str) -> Estimate:
        """From the paired advantages of ``best`` over ``played`` on each deal (a loss
        of 0 if they are not positive on average: then the best is the call made)."""
        loss = math.fsum(gains) / len(gains)
        return cls({}, best if loss > 0 else played, max(0.0, loss), _margin(gains),
                   len(gains), loss)

    def grade(self, kind: str) -> Grade:
        """The class of the loss's lower bound: a loss within its margin of a threshold
        does not reach it."""
        return grade_of(kind, self.loss - (self.margin or 0.0))

    def settled(self, kind: str) -> bool:
        """Whether more deals could hardly change the grade: the loss's lower and upper
        bounds fall in one class."""
        margin = self.margin or 0.0
        upper = max(0.0, self.gap + margin)
        return grade_of(kind, self.loss - margin) == grade_of(kind, upper)


def _margin(diffs: Sequence[float]) -> float:
    """CONFIDENCE standard errors of the mean of ``diffs`` (infinite for one deal)."""
    n = len(diffs)
    if n < 2:
        return math.inf
    return CONFIDENCE * statistics.stdev(diffs) / math.sqrt(n)


def review(record: Mapping[str, Any], *, seed: int = 0, samples: int = DEFAULT_SAMPLES,
           seats: Collection[int] = range(4), kinds: Collection[Kind] = KINDS,
           progress: Callable[[int, int], None] | None = None) -> MatchReview:
    """Judge every decision of ``seats`` and ``kinds`` in a (finished or partial) match
    record; RecordError if the record is not valid.  ``progress(done, total)`` after each
    decision.  A decision's judgement does not depend on which others are judged."""
    if samples < 1:
        raise ValueError("samples must be at least 1")
    moments = [m for m in _moments(record) if m.obs.seat in seats and m.kind in kinds]
    options = read_options(record)
    judge = _Judge(options, seed, samples)
    decisions = []
    for done, moment in enumerate(moments, 1):
        decisions.append(judge.decision(moment))
        if progress is not None:
            progress(done, len(moments))
    scale = options.card_scale
    thresholds = {kind: (a / scale, b / scale, c / scale)
                  for kind, (a, b, c) in THRESHOLDS.items()}
    return MatchReview(seed, samples, thresholds, tuple(decisions),
                       tuple(_summary(seat, decisions) for seat in range(4)))


def _moments(record: Mapping[str, Any]) -> list[_Moment]:
    """Replay the record (checked by :func:`engine.record.replay` first) and capture
    each decision: the seat's observation before it acts and the true hands.  A coinche
    out of turn is its seat's (not the seat to move's) and, that seat's one action then,
    not a choice judged."""
    replay(dict(record))
    deals = record["deals"]
    match = Match(read_options(record), dealer=deals[0]["dealer"] if deals else 0,
                  auto_deal=False)
    moments: list[_Moment] = []
    for i, entry in enumerate(deals):
        deal = match.start_deal([parse_card(c) for c in entry["deck"].split(" ")])
        for step, raw in enumerate(entry["actions"]):
            seat = raw["seat"]  # not always the seat to move: a coinche out of turn
            for action in read_action(raw):
                legal = deal.legal_actions_of(seat)
                obs = match.observation(seat)
                hands = (deal.hands[0], deal.hands[1], deal.hands[2], deal.hands[3])
                for kind in _kinds(action, legal):
                    moments.append(_Moment(i, step, kind, obs, action, hands))
                match.apply_action(action, seat)
    return moments


def _kinds(action: Action, legal: Sequence[Action]) -> list[Kind]:
    """The decisions an engine action makes: a call with a choice; whether to announce
    (while announcing is open); which card (when not forced); whether to say belot."""
    if is_call(action):
        return ["bid"] if len(legal) > 1 else []
    kinds: list[Kind] = []
    if any(is_announce(a) for a in legal):
        kinds.append("announce")
    if is_announce(action):
        return kinds
    card = action % BELOT
    if sum(1 for a in legal if a < BELOT) > 1:
        kinds.append("card")
    if BELOT + card in legal:
        kinds.append("belot")
    return kinds


class _Judge:
    """Values the choices of one moment; keeps a solver per deal and contract."""

    def __init__(self, options: Options, seed: int, samples: int) -> None:
        self.options = options
        self.seed = seed
        self.samples = samples
        self.solvers: dict[tuple[int, int], Solver] = {}
        # Per deal: the solved bid-phase deals, and each seat's sampled decks (shared by
        # its calls, so that the later calls reuse the solved deals).
        self.solved: dict[tuple[int, int, tuple[Mask, ...]], tuple[int, int | None]] = {}
        self.decks: dict[tuple[int, int], list[list[Card]]] = {}
        self.deal = -1

    def rng(self, moment: _Moment) -> random.Random:
        """Each decision its own generator, so that a judgement depends only on the seed,
        where it is in the match and what the seat saw (not on the other decisions)."""
        return random.Random(f"{self.seed}:{moment.deal}:{moment.step}:{moment.kind}")

    def solver(self, deal: int, contract: int) -> Solver:
        key = (deal, contract)
        solver = self.solvers.get(key)
        if solver is None:
            solver = self.solvers[key] = Solver(contract, self.options, 8)
        return solver

    def decision(self, m: _Moment) -> Decision:
        if m.deal != self.deal:  # a new deal: what was solved for the last one is useless
            self.deal, self.solvers, self.solved, self.decks = m.deal, {}, {}, {}
        hindsight: dict[str, float] | None = None
        played = _played_text(m)
        if m.kind == "bid":
            values = self.bid_values(m)
            order = sorted(values, key=lambda a: (-values[a], a != played, a))
            estimate = self.bid_loss(m, order[0], played)
            if len(order) > MOST_BIDS:
                order = order[:MOST_BIDS] + ([played] if played not in order[:MOST_BIDS]
                                             else [])
        else:
            estimate, hindsight = self.play_values(m)
            values = estimate.means
            order = sorted(values, key=lambda a: (-values[a], a != played, a))
        h_best = h_loss = None
        if hindsight is not None:
            h_best = max(hindsight, key=lambda a: (hindsight[a], a == played))
            h_loss = max(0.0, hindsight[h_best] - hindsight[played])
        scale = self.options.card_scale
        choices = tuple(Choice(a, values[a] / scale,
                               None if hindsight is None else hindsight[a] / scale)
                        for a in order)
        return Decision(m.deal, m.step, m.obs.seat, m.kind, played, estimate.best,
                        estimate.loss / scale,
                        None if estimate.margin is None else estimate.margin / scale,
                        estimate.worlds, estimate.grade(m.kind), h_best,
                        None if h_loss is None else h_loss / scale, choices)

    # ------------------------------------------------------------------ play phase

    def play_values(self, m: _Moment) -> tuple[Estimate, dict[str, float]]:
        """The informed estimate of a play-phase moment, and its choices' values in
        hindsight.

        ``samples`` worlds at least, the same worlds for every choice (paired); then more,
        up to ``MORE_SAMPLES`` times as many, while the choice made is not the best and
        the grade is still open (its bounds, :meth:`Estimate.settled`, fall in different
        classes): a clear decision, or one whose choice was the best (good, whatever more
        deals would say of it), is judged at once, a close one on more deals.  The worlds
        are drawn as the hard bot draws them: likelier the better they explain the
        others' plays (ai/likelihood.py)."""
        obs = m.obs
        assert obs.contract is not None
        solver = self.solver(m.deal, obs.contract)
        rng = self.rng(m)
        knowledge = infer(obs)
        model = PlayModel(obs)
        scorers = self._scorers(m)
        taken = next(iter(scorers.values())).taken
        played = _played_text(m)
        worlds: list[list[Mask]] = []
        solved: list[dict[Card, int]] = []
        most = max(2, self.samples * MORE_SAMPLES)
        while True:
            hands = likely_deal(knowledge, model, rng)
            hands[obs.seat] = obs.hand
            worlds.append(hands)
            solved.append(solver.move_values(hands, obs.trick, obs.leader, taken))
            if len(worlds) >= self.samples:
                estimate = Estimate.paired(_series(m, worlds, solved, scorers), played)
                if (estimate.best == played or estimate.settled(m.kind)
                        or len(worlds) >= most):
                    break
        truth = list(m.hands)
        hindsight = _series(m, [truth], [solver.move_values(truth, obs.trick, obs.leader,
                                                            taken)], scorers)
        return estimate, {a: v[0] for a, v in hindsight.items()}

    def _scorers(self, m: _Moment) -> dict[str, Scorer]:
        """For an announcement, one scorer per choice (what is declared differs)."""
        if m.kind != "announce":
            return {"": Scorer(m.obs)}
        scorers = {NO_ANNOUNCEMENT: Scorer(m.obs)}
        for a in m.obs.legal_actions:
            if is_announce(a):
                scorers[action_name(a)] = Scorer(m.obs, ((m.obs.seat, a - ANNOUNCE),))
        return scorers

    # ------------------------------------------------------------------ auction

    def bid_values(self, m: _Moment) -> dict[str, float]:
        """Each legal call's mean score lead on the seat's choosing decks: the auction
        finished by hard's calls in each sampled deal, the contract solved open and
        scored."""
        decks = self._decks(m)[:bid_samples(self.samples)]
        return {action_name(a): sum(self._rollout(m, deck, a) for deck in decks) / len(decks)
                for a in m.obs.legal_actions}

    def bid_loss(self, m: _Moment, best: str, played: str) -> Estimate:
        """The advantage of the call best on the choosing decks over the call made,
        measured on the seat's other decks (the same decks for both calls: paired).  Held
        out: the best of up to nine means over a few whole deals is mostly the luck that
        made it best, which other deals do not repeat (measured: on fresh deals it did
        worse than the call made; docs/analysis.md).  No loss, and none measured, if the
        call made was the best.  (Not more decks while its grade is open, as for a card:
        they cost a 13-deal match 11 s of CPU, docs/analysis.md.)"""
        choosing = bid_samples(self.samples)
        if best == played:
            return Estimate({}, played, 0.0, None, choosing)
        calls = {action_name(a): a for a in m.obs.legal_actions}
        gains = [self._rollout(m, deck, calls[best]) - self._rollout(m, deck, calls[played])
                 for deck in self._decks(m)[choosing:]]
        return Estimate.of_gains(gains, best, played)

    def _decks(self, m: _Moment) -> list[list[Card]]:
        """The decks a seat's calls in a deal are judged on, drawn at its first call
        (what it learns later in the auction is soft evidence only, and judging every
        call on the same deals lets them share the solved contracts): first the choosing
        decks, then the held-out ones."""
        key = (m.deal, m.obs.seat)
        decks = self.decks.get(key)
        if decks is None:
            rng = random.Random(f"{self.seed}:{m.deal}:{m.obs.seat}:auction")
            weights = infer(m.obs).weights
            n = bid_samples(self.samples) * (1 + HELD_OUT)
            decks = self.decks[key] = [_auction_deck(m.obs, weights, rng) for _ in range(n)]
        return decks

    def _rollout(self, m: _Moment, deck: list[Card], call: Action) -> float:
        obs = m.obs
        match = Match(self.options, dealer=obs.dealer, auto_deal=False)
        deal = match.start_deal(deck)
        for seat, a in obs.auction:
            deal.apply(a, seat)
        deal.apply(call, obs.seat)
        while deal.phase == Phase.AUCTION:
            deal.apply(finishing_call(match.observation(deal.to_move)))
        if deal.thrown_in:
            return 0.0
        return self._deal_value(m, deal, obs.seat & 1)

    def _deal_value(self, m: _Moment, deal: Deal, team: int) -> float:
        """The score lead of ``team`` in a deal just bid, every hand open, every seat
        declaring its best combinations and belots."""
        hands = tuple(deal.hands)
        contract = deal.contract
        key = (m.deal, contract, hands)
        solved = self.solved.get(key)
        if solved is None:
            raw = self.solver(m.deal, contract).value(list(hands), [], deal.leader)
            solved = self.solved[key] = split(raw, self.options.card_total(contract))
        team0, valat = solved
        points = [0, 0]
        rules = self.options.declarations_in(contract)
        if rules is not None:
            declared: list[tuple[int, int]] = []
            for seat, hand in enumerate(hands):
                best = max(decompositions(hand, rules),
                           key=lambda full: sum(COMBOS[i].value(rules) for i in full))
                declared += [(seat, i) for i in sorted(best)]
            trump = contract if contract < NO_TRUMPS else None
            points, _ = resolve(declared, trump, rules)
        belots = [0, 0]
        for seat, hand in enumerate(hands):
            belots[seat & 1] += pairs_held(hand, self.options.belot_cards[contract], set())
        tally = Tally(contract, deal.declarer, deal.multiplier,
                      (team0, self.options.card_total(contract) - team0),
                      (points[0], points[1]), (belots[0], belots[1]), valat, value=deal.value,
                      solo=valat == deal.declarer & 1)
        return deal_lead(tally, m.obs.pool, self.options, team)


def _series(m: _Moment, worlds: list[list[Mask]], solved: list[dict[Card, int]],
            scorers: dict[str, Scorer]) -> dict[str, list[float]]:
    """Each choice's score lead in each of ``worlds`` (solved: team 0's points after
    each card), the same worlds for every choice, so that their differences are paired.
    An announcement is followed by the card best on average for it."""
    pairs = list(zip(solved, worlds, strict=True))
    if m.kind == "card":
        scorer = scorers[""]
        return {card_name(c): [scorer.score(v[c], h) for v, h in pairs] for c in solved[0]}
    if m.kind == "belot":
        scorer = scorers[""]
        card = m.action % BELOT
        return {card_name(card) + "+belot": [scorer.score(v[card], h) for v, h in pairs],
                card_name(card): [scorer.score(v[card], h, forgo=card >> 3) for v, h in pairs]}
    out = {}
    for name, s in scorers.items():
        by_card = [[s.score(v[c], h) for v, h in pairs] for c in solved[0]]
        out[name] = max(by_card, key=math.fsum)
    return out

def finishing_call(obs: Observation) -> Action:
    """The calls that finish a sampled auction: hard's (its table); in an auction of
    point bids, normal's estimate, as hard's own search would cost a set of solved deals
    for every call of every rollout.  A forced call is made as it is."""
    if len(obs.legal_actions) == 1:
        return obs.legal_actions[0]
    return normal_point_call(obs) if is_point_auction(obs) else hard_call(obs)


def bid_samples(samples: int) -> int:
    """Deals per seat and auction that every call is valued on, to choose the best: half
    the samples (each costs a solved deal per contract reached, where a card costs one
    search from the current trick)."""
    return max(1, samples // 2)


def _auction_deck(obs: Observation, weights: tuple[tuple[float, ...], ...],
                  rng: random.Random) -> list[Card]:
    """A deck consistent with what the seat knows in the auction: its own cards where
    they were dealt, the turned card (if any), every other card drawn at random, to a
    hand in proportion to its room times the auction's prior weight (ai.inference), or
    to the cards dealt after the auction."""
    dealt = Deal(obs.options, obs.dealer, list(range(32))).hands  # deck positions by seat
    positions = [list(cards_of(dealt[s])) for s in range(4)]
    deck: list[Card | None] = [None] * 32
    for pos, card in zip(positions[obs.seat], cards_of(obs.hand), strict=True):
        deck[pos] = card
    known = obs.hand
    before = obs.options.cards_before_auction
    if obs.turned is not None:
        deck[before] = obs.turned
        known |= 1 << obs.turned
    unknown = list(cards_of(FULL_DECK & ~known))
    rng.shuffle(unknown)
    others = [s for s in range(4) if s != obs.seat]
    room = {s: len(positions[s]) for s in others}
    later = [p for p in range(before, 32) if deck[p] is None]
    filled: dict[int, list[Card]] = {s: [] for s in others}
    rest: list[Card] = []
    for card in unknown:
        options = [(s, room[s] * weights[s][card]) for s in others if room[s]]
        options.append((-1, float(len(later) - len(rest))))
        chosen = weighted_pick(options, rng)
        if chosen < 0:
            rest.append(card)
        else:
            filled[chosen].append(card)
            room[chosen] -= 1
    for s in others:
        for pos, card in zip(positions[s], filled[s], strict=True):
            deck[pos] = card
    for pos, card in zip(later, rest, strict=True):
        deck[pos] = card
    assert all(c is not None for c in deck)
    return [c for c in deck if c is not None]


def _played_text(m: _Moment) -> str:
    if m.kind == "announce":
        return action_name(m.action) if is_announce(m.action) else NO_ANNOUNCEMENT
    if m.kind == "card":
        return card_name(m.action % BELOT)
    return action_name(m.action)


def _summary(seat: int, decisions: Sequence[Decision]) -> SeatSummary:
    own = [d for d in decisions if d.seat == seat]
    counts = dict.fromkeys(("good", "inaccuracy", "mistake", "blunder"), 0)
    for d in own:
        counts[d.grade] += 1
    costly = sorted((d for d in own if d.loss > 0), key=lambda d: -d.loss)[:COSTLIEST]
    return SeatSummary(seat, len(own), sum(d.loss for d in own) / len(own) if own else 0.0,
                       counts, tuple((d.deal, d.step) for d in costly))


def review_json(review: MatchReview) -> dict[str, Any]:
    """The review ready for JSON, keys in a stable order, values to two decimals."""
    def number(x: float | None) -> float | None:
        """JSON's: rounded, and null for what was not measured (an infinite margin: one
        deal has no spread), which JSON cannot write."""
        return None if x is None or not math.isfinite(x) else round(x, 2) + 0.0

    return {
        "seed": review.seed,
        "samples": review.samples,
        "unit": UNIT,
        "confidence": CONFIDENCE,
        "thresholds": {kind: dict(zip(("inaccuracy", "mistake", "blunder"),
                                      (number(x) for x in t), strict=True))
                       for kind, t in review.thresholds.items()},
        "decisions": [
            {
                "deal": d.deal, "step": d.step, "seat": d.seat, "kind": d.kind,
                "played": d.played, "best": d.best, "loss": number(d.loss),
                "margin": number(d.margin), "worlds": d.worlds, "grade": d.grade,
                "hindsight_best": d.hindsight_best,
                "hindsight_loss": number(d.hindsight_loss),
                "choices": [{"action": c.action, "value": number(c.value),
                             "hindsight": number(c.hindsight)} for c in d.choices],
            }
            for d in review.decisions
        ],
        "seats": [
            {"seat": s.seat, "decisions": s.decisions, "mean_loss": number(s.mean_loss),
             "counts": dict(s.counts),
             "costliest": [{"deal": deal, "step": step} for deal, step in s.costliest]}
            for s in review.seats
        ],
    }
