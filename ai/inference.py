"""What ``hard`` infers about the hidden hands, and deals sampled to match it.

Every card played is replayed against the rules: a card ``x`` is excluded from a seat's
hand when holding it would have made the card that seat played illegal.  This one test
covers all the reasoning about voids (it did not follow suit), trump ceilings (it did
not over-trump, so it has no higher trump) and trumplessness (it discarded when obliged
to trump), under every house rule, because it asks the engine's own ``legal_cards``.
A card can only be excluded this way when the exclusion is pairwise, which holds for the
rules of RULES §5: each obligation reads "if you hold a card of this kind, play one".

Announcements locate cards outright (a belot shows the other card of the pair, a carré
of jacks or nines, named by its value, its four cards, the classic taker holds the
turned card), until they are played.  The auction gives soft
evidence: a seat that named a suit (or bid points in it) is more likely to hold its jack
and nine; in classic, a seat that passed less likely to hold those of the suits it
declined.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, replace
from typing import TypeVar

from engine.actions import COINCHE, PASS, POINT_BID, POINT_BID_END, contract_of, is_contract
from engine.cards import (
    ACE,
    FULL_DECK,
    JACK,
    KING,
    NINE,
    NO_TRUMPS,
    QUEEN,
    RANK_MASK,
    SUIT_MASK,
    Card,
    Mask,
    cards_of,
)
from engine.deal import legal_cards, trick_state
from engine.observation import Observation

T = TypeVar("T")

# Prior weight of a card for a seat that named its suit in the auction (others: 1).
NAMED_TOP_WEIGHT = 4.0  # jack and nine of the named suit
NAMED_WEIGHT = 1.6  # the other cards of that suit
# Classic: the jack and nine of a suit a seat could have taken and passed (the turned
# suit in the first round, the others in the second).
PASSED_TOP_WEIGHT = 0.5


@dataclass(frozen=True, slots=True)
class Knowledge:
    """Hard facts and soft beliefs about the three hidden hands of a seat."""

    seat: int
    hidden: Mask  # every card in the other three hands
    sizes: tuple[int, int, int, int]  # cards each seat still holds
    excluded: tuple[Mask, Mask, Mask, Mask]  # cards a seat cannot hold
    located: tuple[Mask, Mask, Mask, Mask]  # cards a seat surely holds
    weights: tuple[tuple[float, ...], ...]  # [seat][card] prior weight


def infer(obs: Observation) -> Knowledge:
    """Everything the observation tells about where each hidden card lies (in the
    auction, before any card is played, that is the soft evidence alone: the review
    samples the deals of its calls with it)."""
    contract = obs.contract
    played = 0
    plays: list[tuple[int, tuple[Card, ...], Card]] = []  # (seat, trick before, card)
    for leader, cards in (*obs.tricks, (obs.leader, obs.trick)):
        for i, card in enumerate(cards):
            plays.append(((leader + i) % 4, tuple(cards[:i]), card))
            played |= 1 << card
    hidden = FULL_DECK & ~played & ~obs.hand
    excluded = [0, 0, 0, 0]
    for seat, before, card in plays:
        if seat == obs.seat or not before:
            continue
        assert contract is not None  # cards are played under a contract only
        win_seat, win_card, _ = trick_state(before, (seat - len(before)) % 4, contract)
        partner = (win_seat - seat) & 1 == 0
        for x in cards_of(hidden & ~excluded[seat]):
            pair = (1 << card) | (1 << x)
            if not legal_cards(pair, before, win_card, partner, contract, obs.options) >> card & 1:
                excluded[seat] |= 1 << x
    located = [0, 0, 0, 0]
    for seat, suit in obs.belots:
        located[seat] |= SUIT_MASK[suit] & (RANK_MASK[KING] | RANK_MASK[QUEEN])
    for a in obs.announcements:
        if a.cards is not None:
            located[a.seat] |= a.cards
        elif a.rank is not None:  # another seat's carré of jacks or nines
            located[a.seat] |= RANK_MASK[a.rank]
    if obs.turned is not None and obs.declarer is not None:
        located[obs.declarer] |= 1 << obs.turned
    located = [m & hidden if s != obs.seat else 0 for s, m in enumerate(located)]
    for seat in range(4):
        for other in range(4):
            if other != seat:
                excluded[seat] |= located[other]
    return Knowledge(
        seat=obs.seat,
        hidden=hidden,
        sizes=obs.hand_sizes,
        excluded=(excluded[0], excluded[1], excluded[2], excluded[3]),
        located=(located[0], located[1], located[2], located[3]),
        weights=_auction_weights(obs),
    )


UNIFORM = tuple((1.0,) * 32 for _ in range(4))


def infer_facts(obs: Observation) -> Knowledge:
    """What :func:`infer` finds, without the auction's soft evidence: deals drawn from it
    are uniform but for the rules' hard facts (the arena's baseline players)."""
    return replace(infer(obs), weights=UNIFORM)


def _auction_weights(obs: Observation) -> tuple[tuple[float, ...], ...]:
    """A seat that named a suit (a contract or a point bid in it) more likely holds its
    jack and nine, and its other cards; one that bid points in no trumps, aces; in all
    trumps, jacks and nines.  A coinche reads as strength in the coinched bid's trumps.
    In classic, a pass makes the jack and nine of the suits it declined less likely
    (:data:`PASSED_TOP_WEIGHT`): the turned suit in the first round, the others in the
    second."""
    weights = [[1.0] * 32 for _ in range(4)]
    standing = None  # the strain of the last point bid
    for n, (seat, call) in enumerate(obs.auction):
        if call == PASS and obs.turned is not None and obs.options.variant == "classic":
            turned = obs.turned >> 3
            for suit in [turned] if n < 4 else [x for x in range(4) if x != turned]:
                for card in cards_of(SUIT_MASK[suit] & (RANK_MASK[JACK] | RANK_MASK[NINE])):
                    weights[seat][card] = min(weights[seat][card], PASSED_TOP_WEIGHT)
        elif POINT_BID <= call < POINT_BID_END:
            standing = contract_of(call)
            _weigh_strain(weights[seat], standing)
        elif is_contract(call) and contract_of(call) < NO_TRUMPS:
            _weigh_strain(weights[seat], contract_of(call))
        elif call == COINCHE and standing is not None:
            _weigh_strain(weights[seat], standing)
    return tuple(tuple(w) for w in weights)


def _weigh_strain(weights: list[float], strain: int) -> None:
    if strain < NO_TRUMPS:
        for card in cards_of(SUIT_MASK[strain]):
            top = card & 7 in (JACK, NINE)
            weights[card] = max(weights[card], NAMED_TOP_WEIGHT if top else NAMED_WEIGHT)
        return
    honours = RANK_MASK[ACE] if strain == NO_TRUMPS else RANK_MASK[JACK] | RANK_MASK[NINE]
    for card in cards_of(honours):
        weights[card] = max(weights[card], NAMED_TOP_WEIGHT)


def sample(knowledge: Knowledge, rng: random.Random) -> list[Mask]:
    """One deal of the hidden cards consistent with every hard fact.

    Cards are placed one at a time, each to a seat drawn in proportion to its free room
    times the prior weight, among the seats that leave the rest placeable (Hall's
    condition over the three seats), so sampling never dead-ends.  If the facts
    contradict each other (they should not) the soft ones are dropped, then all.
    """
    seats = [s for s in range(4) if s != knowledge.seat]
    located = knowledge.located
    every = located[0] | located[1] | located[2] | located[3]
    by_location = tuple(every & ~located[s] for s in range(4))
    for excluded, fixed in ((knowledge.excluded, located), (by_location, located),
                            ((0, 0, 0, 0), (0, 0, 0, 0))):
        hands = _place(knowledge, seats, excluded, fixed, rng)
        if hands is not None:
            return hands
    raise AssertionError("hand sizes always allow some deal")


def _place(
    knowledge: Knowledge, seats: list[int], excluded: tuple[Mask, ...],
    located: tuple[Mask, ...], rng: random.Random,
) -> list[Mask] | None:
    hands = [0, 0, 0, 0]
    room = [0, 0, 0]  # free room of seats[i]
    located_all = 0
    for i, s in enumerate(seats):
        hands[s] = located[s]
        located_all |= located[s]
        room[i] = knowledge.sizes[s] - located[s].bit_count()
        if room[i] < 0:
            return None
    free = list(cards_of(knowledge.hidden & ~located_all))
    rng.shuffle(free)
    patterns = []
    counts = [0] * 8  # cards by the set of seats (bits over ``seats``) that may take them
    for card in free:
        pattern = sum(1 << i for i, s in enumerate(seats) if not excluded[s] >> card & 1)
        patterns.append(pattern)
        counts[pattern] += 1
    if not _feasible(counts, room):
        return None
    weights = [knowledge.weights[s] for s in seats]
    for card, pattern in zip(free, patterns, strict=True):
        counts[pattern] -= 1
        options: list[tuple[int, float]] = []
        for i in range(3):
            if pattern >> i & 1 and room[i]:
                room[i] -= 1
                if _feasible(counts, room):
                    options.append((i, (room[i] + 1) * weights[i][card]))
                room[i] += 1
        i = weighted_pick(options, rng)
        hands[seats[i]] |= 1 << card
        room[i] -= 1
    return hands


def weighted_pick(options: list[tuple[T, float]], rng: random.Random) -> T:
    """One of the options, drawn in proportion to its weight (the last one when rounding
    leaves the draw past every weight)."""
    pick = rng.random() * sum(w for _, w in options)
    for choice, w in options:
        pick -= w
        if pick < 0:
            return choice
    return options[-1][0]


def _feasible(counts: list[int], room: list[int]) -> bool:
    """Hall's condition: every set of seats has room for the cards only it may take
    (the seven sets written out: this test runs for every card of every sample)."""
    _, c1, c2, c3, c4, c5, c6, c7 = counts
    r0, r1, r2 = room
    return (counts[0] == 0 and c1 <= r0 and c2 <= r1 and c4 <= r2
            and c1 + c2 + c3 <= r0 + r1 and c1 + c4 + c5 <= r0 + r2
            and c2 + c4 + c6 <= r1 + r2 and c1 + c2 + c3 + c4 + c5 + c6 + c7 <= r0 + r1 + r2)
