"""French Belote (RULES.md, "classic"): five cards and a turned card, two rounds in which
a seat takes the turned suit or names another and gets the turned card, then the rest; no
declarations but belote; card points as they fall, a failed contract's points to the
defenders."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..actions import BID, PASS, Action
from ..cards import SPADES
from ..options import Options, flag
from ..scoring import FAILED, HANGING, MADE, VALAT_BONUS, Tally

if TYPE_CHECKING:
    from ..deal import Deal


@dataclass(frozen=True, slots=True)
class Classic(Options):
    """Classic Belote and its house rules (RULES.md §9)."""

    variant = "classic"
    packets_before = (3, 3, 3, 3, 2, 2, 2, 2)
    packets_after = (3, 3, 3, 3)
    turns_card = True
    contracts = tuple(range(SPADES + 1))
    multipliers = (1,)
    auction_rounds = 2
    bid_ends_auction = True
    card_scale = 1

    table_direction: str = flag("counterclockwise", "clockwise", default="clockwise")
    target_score: int = flag(default=1000)
    undertrump_on_opponent_ruff: str = flag("compulsory", "optional")
    partner_ruff_no_undertrump: bool = flag(True, False)
    belote_counts_for_contract: bool = flag(True, False)
    litige: str = flag("carry", "takers_fail", "takers_make")

    def ruff_rule(self) -> tuple[bool, bool]:
        return (self.partner_ruff_no_undertrump,
                self.undertrump_on_opponent_ruff == "compulsory")

    def legal_calls(self, deal: Deal) -> list[Action]:
        """Take the turned suit in the first round, name another in the second."""
        assert deal.turned is not None
        turned = deal.turned >> 3
        if deal.round == 1:
            return [BID + turned, PASS]
        return [BID + s for s in self.contracts if s != turned] + [PASS]

    def score(self, tally: Tally, pool: int) -> tuple[str, tuple[int, int], int]:
        t = tally
        cards = [t.card_points[team] + (VALAT_BONUS if t.valat == team else 0) for team in (0, 1)]
        belote = [20 * t.belots[0], 20 * t.belots[1]]
        total = [cards[0] + belote[0], cards[1] + belote[1]]
        b = t.bidder % 2
        d = 1 - b
        judged = total if self.belote_counts_for_contract else cards
        out = [0, 0]
        if judged[b] == judged[d]:
            if self.litige == "carry":
                out[b], out[d] = belote[b], total[d]
                return HANGING, (out[0], out[1]), pool + cards[b]
            made = self.litige == "takers_make"
        else:
            made = judged[b] > judged[d]
        if made:
            out[b], out[d] = total[b] + pool, total[d]
            return MADE, (out[0], out[1]), 0
        out[b] = belote[b]
        out[d] = (252 if t.valat == d else 162) + belote[d] + pool
        return FAILED, (out[0], out[1]), 0
