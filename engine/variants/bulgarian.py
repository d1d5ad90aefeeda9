"""Bulgarian Belot (RULES.md): five cards, an auction up the ladder C D H S NT AT with
doubles, three more cards; declarations in the first trick of a suit or all-trumps deal;
scores in tens, and a valat never wins the match on its own."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..actions import BID, DOUBLE, PASS, REDOUBLE, Action
from ..cards import ALL_TRUMPS, CLUBS, DIAMONDS, HEARTS, NO_TRUMPS, SPADES, Contract
from ..options import Options, flag
from ..scoring import (
    FAILED,
    HANGING,
    MADE,
    VALAT_BONUS,
    DealResult,
    MatchProgress,
    Tally,
    round_tens,
    round_total,
)

if TYPE_CHECKING:
    from ..deal import Deal
    from ..declarations import DeclarationRules

_LAST_BID = BID + ALL_TRUMPS + 1  # one past the ladder's top call


@dataclass(frozen=True, slots=True)
class Bulgarian(Options):
    """Bulgarian Belot and its house rules (RULES.md §9)."""

    variant = "bulgarian"
    packets_before = (3, 3, 3, 3, 2, 2, 2, 2)
    packets_after = (3, 3, 3, 3)
    turns_card = False
    contracts = tuple(range(ALL_TRUMPS + 1))
    multipliers = (1, 2, 4)
    auction_rounds = 1
    bid_ends_auction = False
    declaration_contracts = frozenset((CLUBS, DIAMONDS, HEARTS, SPADES, ALL_TRUMPS))
    card_scale = 10  # scores in tens

    target_score: int = flag(default=151)
    valat_multiplied: bool = flag(True, False)
    valat_blocks_win: str = flag("raise_target", "extra_deal", "must_score")
    declaration_resolution: str = flag("per_category", "single")
    equal_sequences: str = flag("cancel", "trump_then_first")
    long_run: str = flag("single_quint", "quint_plus_tierce_for_8")
    overlap_policy: str = flag("carre_first", "player_choice")

    def legal_calls(self, deal: Deal) -> list[Action]:
        """A higher contract or pass; double an opposing contract, redouble a doubled own
        one (RULES §4)."""
        k = deal.contract
        calls = [*range(BID + k + 1, _LAST_BID), PASS]
        if k >= 0:
            same_team = (deal.declarer - deal.to_move) & 1 == 0
            if deal.multiplier == 1 and not same_team:
                calls.append(DOUBLE)
            elif deal.multiplier == 2 and same_team:
                calls.append(REDOUBLE)
        return calls

    def declarations_in(self, contract: Contract) -> DeclarationRules | None:
        return self if contract in self.declaration_contracts else None

    def score(self, tally: Tally, pool: int) -> tuple[str, tuple[int, int], int]:
        t = tally
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
        if t.valat is not None and not self.valat_multiplied:
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

    def after_deal(self, before: MatchProgress, result: DealResult) -> MatchProgress:
        """A valat deal never ends the match ([G] ``valat_blocks_win``); with
        ``must_score`` the leader past the target must also have scored in the last deal."""
        if result.valat is not None:
            totals = (before.totals[0] + result.score[0], before.totals[1] + result.score[1])
            target = before.target
            if self.valat_blocks_win == "raise_target" and max(totals) >= target:
                target = max(totals) + 1
            return MatchProgress(totals, target, None)
        progress = Options.after_deal(self, before, result)  # slots: no zero-argument super()
        winner = progress.winner
        if winner is not None and self.valat_blocks_win == "must_score" \
                and result.score[winner] == 0:
            return MatchProgress(progress.totals, progress.target, None)
        return progress
