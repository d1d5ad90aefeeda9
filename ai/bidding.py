"""Hand evaluation for the auction, shared by the levels.

A call is chosen from the cards the bidder will surely hold: those dealt before the
auction, plus the turned card where there is one (the taker always gets it).  ``normal``
scores them with hand-set weights; ``hard`` looks up the table that
``ai/build_bid_table.py`` computed offline by simulation (``ai/bid_table.json``), one
part of it per variant, and bids from its variant's threshold (:func:`hard_threshold`).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from functools import cache
from pathlib import Path

from engine.actions import BID, DOUBLE, PASS, REDOUBLE, Action, is_contract
from engine.cards import (
    ACE,
    ALL_TRUMPS,
    FULL_DECK,
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
from engine.declarations import COMBOS, decompositions
from engine.observation import Observation
from engine.options import Options

TABLE_PATH = Path(__file__).with_name("bid_table.json")

# normal: value of a card by rank (7 8 9 T J Q K A): as a trump, in a side suit of a
# suit contract (worth less there: it may be ruffed), in all trumps and in no trumps.
_TRUMP_VALUE = (0.4, 0.4, 2.3, 1.0, 3.0, 0.6, 0.7, 1.3)
_SIDE_VALUE = (0.0, 0.0, 0.0, 0.4, 0.1, 0.2, 0.4, 1.2)
_AT_VALUE = (0.0, 0.0, 1.5, 0.4, 2.0, 0.1, 0.2, 0.7)
_NT_VALUE = (0.0, 0.0, 0.0, 0.6, 0.1, 0.2, 0.4, 2.0)
_NT_RISK = 1.0  # no trumps fails more often than its count suggests (simulated)
VOID_VALUE = 0.5  # a void in a side suit, with two trumps or more to ruff it
BID_THRESHOLD = 5.0  # normal bids the best contract whose value reaches this
# Margins above the threshold, in units of the value function (normal: 1 = a trick).
DOUBLE_MARGIN = 0.8  # double an opposing contract our hand would value this much higher
REDOUBLE_MARGIN = 2.0
RAISE_MARGIN = 1.5  # overbid the partner only when this much stronger


def known_cards(obs: Observation) -> Mask:
    """The cards the seat will hold whatever it bids (the turned card too, if any)."""
    return obs.hand | (0 if obs.turned is None else 1 << obs.turned)


def features(cards: Mask, contract: Contract) -> tuple[int, ...]:
    """The hand's traits that decide a contract; the key of the simulated table.

    Suit: jack and nine of trumps, number of trumps, side aces, side tens.  No trumps:
    aces, tens, kings.  All trumps: jacks, nines, aces.
    """
    def count(rank: int, within: Mask = FULL_DECK) -> int:
        return (cards & RANK_MASK[rank] & within).bit_count()

    if contract == NO_TRUMPS:
        return count(ACE), count(TEN), count(KING)
    if contract == ALL_TRUMPS:
        return count(JACK), count(NINE), count(ACE)
    trumps = SUIT_MASK[contract]
    side = ~trumps
    return (count(JACK, trumps), count(NINE, trumps), (cards & trumps).bit_count(),
            count(ACE, side), count(TEN, side))


def hand_value(cards: Mask, contract: Contract, options: Options) -> float:
    """normal's estimate of the hand's worth for a contract, in rough tricks."""
    value = 0.0
    for suit in range(4):
        held = cards >> (8 * suit) & 0xFF
        ranks = [r for r in range(8) if held >> r & 1]
        if contract == ALL_TRUMPS:
            value += sum(_AT_VALUE[r] for r in ranks)
        elif contract == NO_TRUMPS or suit != contract:
            table = _NT_VALUE if contract == NO_TRUMPS else _SIDE_VALUE
            value += sum(table[r] for r in ranks)
            if ACE in ranks and TEN in ranks:
                value += 0.5
        else:
            value += sum(_TRUMP_VALUE[r] for r in ranks)
            if KING in ranks and QUEEN in ranks:
                value += 0.5  # belot
    if contract < NO_TRUMPS and (cards & SUIT_MASK[contract]).bit_count() >= 2:
        value += VOID_VALUE * sum(1 for s in range(4) if s != contract and not cards & SUIT_MASK[s])
    if contract == NO_TRUMPS:
        value -= _NT_RISK
    elif (rules := options.declarations_in(contract)) is not None:
        best = max((sum(COMBOS[i].value(rules) for i in full)
                    for full in decompositions(cards, rules)), default=0)
        value += best / 40
    return value


def open_contracts(obs: Observation) -> list[Contract]:
    return [a - BID for a in obs.legal_actions if is_contract(a)]


def choose_call(
    obs: Observation, value: Callable[[Contract], float], threshold: float, unit: float,
    compete: float = 0.0,
) -> Action:
    """The auction policy both ``normal`` and ``hard`` follow, over a value function.

    Bid the best open contract worth ``threshold``; do not overbid a partner unless much
    stronger; overbid the opponents at ``threshold + compete``; double an opposing
    contract the hand clearly beats; redouble when our contract is clearly strong.
    """
    legal = obs.legal_actions
    partner_holds = obs.declarer is not None and (obs.declarer - obs.seat) & 1 == 0
    if REDOUBLE in legal and obs.contract is not None \
            and value(obs.contract) >= threshold + REDOUBLE_MARGIN * unit:
        return REDOUBLE
    candidates = [(value(k), k) for k in open_contracts(obs)]
    if candidates:
        best, contract = max(candidates)
        margin = 0.0
        if partner_holds and obs.contract is not None:
            margin = max(RAISE_MARGIN * unit, value(obs.contract) - threshold + RAISE_MARGIN * unit)
        elif obs.contract is not None:
            margin = compete
        if best >= threshold + margin:
            return BID + contract
    if DOUBLE in legal and obs.contract is not None \
            and value(obs.contract) >= threshold + DOUBLE_MARGIN * unit:
        return DOUBLE
    return PASS


def normal_call(obs: Observation) -> Action:
    cards = known_cards(obs)
    return choose_call(obs, lambda k: hand_value(cards, k, obs.options), BID_THRESHOLD, 1.0)


def easy_call(obs: Observation) -> Action:
    """Bid a suit only with its jack, nine and a third trump in hand; never double."""
    cards = known_cards(obs)
    for contract in open_contracts(obs):
        if contract < NO_TRUMPS:
            jack, nine, count, _, _ = features(cards, contract)
            if jack and nine and count >= 3:
                return BID + contract
    return PASS


@cache
def load_table() -> dict[str, tuple[float, int]]:
    """``"variant:kind:features"`` -> (mean points per deal for the bidder, samples)."""
    data = json.loads(TABLE_PATH.read_text())
    return {key: (float(mean), int(n)) for key, (mean, n) in data["table"].items()}


def contract_kind(contract: Contract) -> str:
    """Suits are pooled: the features are relative to the trump suit."""
    return "NT" if contract == NO_TRUMPS else "AT" if contract == ALL_TRUMPS else "suit"


def table_key(variant: str, contract: Contract, cards: Mask) -> str:
    traits = ",".join(map(str, features(cards, contract)))
    return f"{variant}:{contract_kind(contract)}:{traits}"


def table_value(cards: Mask, contract: Contract, options: Options) -> float:
    """Expected points per deal (card points) of bidding ``contract``, from the table.

    Thin cells are shrunk toward the contract kind's overall mean, so a rare hand is
    judged by the average of its kind rather than by a handful of deals.
    """
    table = load_table()
    overall, _ = table[f"{options.variant}:{contract_kind(contract)}:all"]
    mean, n = table.get(table_key(options.variant, contract, cards), (overall, 0))
    return (mean * n + overall * SHRINK) / (n + SHRINK)


SHRINK = 10  # deals' worth of weight the overall mean gets in every cell
HARD_UNIT = 12.0  # points that play the part of normal's "trick" in the margins
# The auction's context, which the table does not see (measured with bench/auction.py):
# a pass leaves the opponents' contract to them, so hard overbids them on less; and
# where a pass would end the deal unplayed (the others all passed: weak hands), a
# contract worth more than nothing beats it.
HARD_COMPETE = -32.0  # points added to the threshold to overbid the opponents
HARD_LAST = -24.0  # points added to the threshold when a pass would end the deal unplayed
HARD_SHIFT = 0.0  # added to every variant's threshold: what bench/auction.py --set tries


@cache
def load_thresholds() -> dict[str, float]:
    """Each table variant's threshold, kept beside its cells in ``ai/bid_table.json``.

    hard bids when the table expects that many points per deal or more.  Classic's is
    lower: the table was simulated with normal's card play, and under hard's a classic
    contract is worth more than it says (measured with bench/auction.py, docs/bots.md).
    """
    data = json.loads(TABLE_PATH.read_text())
    return {variant: float(t) for variant, t in data["thresholds"].items()}


def hard_threshold(options: Options) -> float:
    """The variant's threshold, from the bid table (a variant the table does not cover
    has none: ValueError)."""
    thresholds = load_thresholds()
    if options.variant not in thresholds:
        raise ValueError(f"ai/bid_table.json has no threshold for {options.variant}")
    return thresholds[options.variant] + HARD_SHIFT


def last_word(obs: Observation) -> bool:
    """Every call so far a pass, and a pass now would end the deal unplayed."""
    return obs.contract is None and len(obs.auction) == 4 * obs.options.auction_rounds - 1


def hard_call(obs: Observation) -> Action:
    cards = known_cards(obs)
    threshold = hard_threshold(obs.options) + (HARD_LAST if last_word(obs) else 0.0)
    return choose_call(obs, lambda k: table_value(cards, k, obs.options), threshold,
                       HARD_UNIT, HARD_COMPETE)
