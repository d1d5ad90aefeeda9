"""The one unit of every bot and the review: what a deal adds to a team's score minus the
other team's, in card points; and the belots a hand scores, which the search leaves to
its callers."""

from __future__ import annotations

from engine.cards import SUIT_MASK, Mask
from engine.options import Options
from engine.scoring import Tally, score_deal


def deal_lead(tally: Tally, pool: int, options: Options, team: int) -> float:
    """What the deal adds to ``team``'s score minus the other's, in card points
    (a variant that scores in tens, times ten)."""
    result = score_deal(tally, pool, options)
    return float((result.score[team] - result.score[1 - team]) * options.card_scale)


def pairs_held(hand: Mask, belot_cards: Mask, announced: set[int]) -> int:
    """Belots the hand can still announce: both cards of a pair of ``belot_cards`` (the
    rules' K and Q of trumps: :attr:`engine.options.Options.belot_cards`) in a suit not
    announced yet."""
    return sum(1 for s in range(4) if s not in announced
               and belot_cards & SUIT_MASK[s]
               and hand & belot_cards & SUIT_MASK[s] == belot_cards & SUIT_MASK[s])
