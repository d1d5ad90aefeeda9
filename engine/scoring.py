"""Scoring of a finished deal and the end of a match (RULES §7, §8), as pure functions."""

from __future__ import annotations

from dataclasses import dataclass

from .cards import ALL_TRUMPS, CONTRACT_NAMES, NO_TRUMPS, Contract
from .options import Options

MADE, FAILED, HANGING, REDEAL, UNFINISHED = "made", "failed", "hanging", "redeal", "unfinished"
VALAT_BONUS = 90
LAST_TRICK = 10
CARD_TOTAL = {NO_TRUMPS: 130, ALL_TRUMPS: 258}  # card points + last trick; suits: 162


def card_total(contract: Contract) -> int:
    return CARD_TOTAL.get(contract, 162)


@dataclass(frozen=True, slots=True)
class DealResult:
    """What a deal did, in the shape of RECORD.md's per-deal replay object."""

    outcome: str
    contract: Contract | None = None
    bidder: int | None = None  # seat
    multiplier: int | None = None
    card_points: tuple[int, int] = (0, 0)
    declarations: tuple[int, int] = (0, 0)
    belot: tuple[int, int] = (0, 0)
    valat: int | None = None
    score: tuple[int, int] = (0, 0)
    hanging: int = 0

    def to_dict(self) -> dict[str, object]:
        return {
            "outcome": self.outcome,
            "contract": None if self.contract is None else CONTRACT_NAMES[self.contract],
            "bidder": self.bidder,
            "multiplier": self.multiplier,
            "card_points": list(self.card_points),
            "declarations": list(self.declarations),
            "belot": list(self.belot),
            "valat": self.valat,
            "score": list(self.score),
            "hanging": self.hanging,
        }


def round_tens(points: int, contract: Contract, low: bool) -> int:
    """One team's raw points in tens (RULES §7.2); ``low`` for the team with fewer points."""
    q, r = divmod(points, 10)
    if contract == NO_TRUMPS:
        up = r >= 5
    elif contract == ALL_TRUMPS:
        up = r >= 5 or (r == 4 and low)
    else:
        up = r >= 7 or (r == 6 and low)
    return q + up


def round_total(total: int) -> int:
    return (total + 5) // 10


@dataclass(frozen=True, slots=True)
class Tally:
    """The raw facts of a played deal, from which either variant's score follows."""

    contract: Contract
    bidder: int  # seat
    multiplier: int
    card_points: tuple[int, int]  # cards + last trick, before NT doubling
    declarations: tuple[int, int]  # points of the declarations that scored
    belots: tuple[int, int]  # how many belots each team announced
    valat: int | None


def score_deal(tally: Tally, carry_in: int, options: Options) -> DealResult:
    score = _score_classic if options.classic else _score_bulgarian
    outcome, points, carry_out = score(tally, carry_in, options)
    return DealResult(
        outcome=outcome,
        contract=tally.contract,
        bidder=tally.bidder,
        multiplier=tally.multiplier,
        card_points=tally.card_points,
        declarations=tally.declarations,
        belot=(20 * tally.belots[0], 20 * tally.belots[1]),
        valat=tally.valat,
        score=points,
        hanging=carry_out,
    )


def _score_bulgarian(t: Tally, pool: int, options: Options) -> tuple[str, tuple[int, int], int]:
    raw = []
    for team in (0, 1):
        base = t.card_points[team] * (2 if t.contract == NO_TRUMPS else 1)
        raw.append(base + t.declarations[team] + 20 * t.belots[team]
                   + (VALAT_BONUS if t.valat == team else 0))
    total = raw[0] + raw[1]
    b = t.bidder % 2
    d = 1 - b
    out = [0, 0]
    multiplier = t.multiplier
    if t.valat is not None and not options.valat_multiplied:
        multiplier = 1  # [NIK]: the double is ignored, the deal scores as undoubled
    if multiplier > 1:
        if raw[0] == raw[1]:
            return HANGING, (0, 0), pool + round_total(total) * multiplier
        winner = 0 if raw[0] > raw[1] else 1
        out[winner] = round_total(total) * multiplier + pool
        return (MADE if winner == b else FAILED), (out[0], out[1]), 0
    if raw[b] > raw[d]:
        out[b] = round_tens(raw[b], t.contract, low=False) + pool
        out[d] = round_tens(raw[d], t.contract, low=True)
        return MADE, (out[0], out[1]), 0
    if raw[b] < raw[d]:
        out[d] = round_total(total) + pool
        return FAILED, (out[0], out[1]), 0
    out[d] = round_tens(raw[d], t.contract, low=False)
    return HANGING, (out[0], out[1]), pool + round_tens(raw[b], t.contract, low=True)


def _score_classic(t: Tally, pool: int, options: Options) -> tuple[str, tuple[int, int], int]:
    cards = [t.card_points[team] + (VALAT_BONUS if t.valat == team else 0) for team in (0, 1)]
    belote = [20 * t.belots[0], 20 * t.belots[1]]
    total = [cards[0] + belote[0], cards[1] + belote[1]]
    b = t.bidder % 2
    d = 1 - b
    judged = total if options.belote_counts_for_contract else cards
    out = [0, 0]
    if judged[b] == judged[d]:
        if options.litige == "carry":
            out[b], out[d] = belote[b], total[d]
            return HANGING, (out[0], out[1]), pool + cards[b]
        made = options.litige == "takers_make"
    else:
        made = judged[b] > judged[d]
    if made:
        out[b], out[d] = total[b] + pool, total[d]
        return MADE, (out[0], out[1]), 0
    out[b] = belote[b]
    out[d] = (252 if t.valat == d else 162) + belote[d] + pool
    return FAILED, (out[0], out[1]), 0


@dataclass(frozen=True, slots=True)
class MatchProgress:
    totals: tuple[int, int]
    target: int
    winner: int | None


def after_deal(
    before: MatchProgress, result: DealResult, options: Options
) -> MatchProgress:
    """Add a played deal to the match and decide whether it is over (RULES §7.8, §8.3)."""
    totals = (before.totals[0] + result.score[0], before.totals[1] + result.score[1])
    target, high = before.target, max(totals)
    if result.outcome == REDEAL:
        return MatchProgress(totals, target, None)
    if result.valat is not None and not options.classic:
        if options.valat_blocks_win == "raise_target" and high >= target:
            target = high + 1
        return MatchProgress(totals, target, None)
    if high < target or totals[0] == totals[1]:
        return MatchProgress(totals, target, None)
    leader = 0 if totals[0] > totals[1] else 1
    must_score = options.valat_blocks_win == "must_score" and not options.classic
    if must_score and result.score[leader] == 0:
        return MatchProgress(totals, target, None)
    return MatchProgress(totals, target, leader)
