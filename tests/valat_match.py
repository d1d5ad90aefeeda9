"""A match whose first deal is a valat that raises the target (RULES.md §7.8), for the
tests of what the history shows of it: a fixed seed and a policy that plays it."""

from __future__ import annotations

import random
from collections.abc import Sequence

from app.db.repository import Repository
from app.db.session import Database
from app.db.storage import MATCH_END
from app.matchlog import Seat
from engine import Action, Match, Options, action_name, parse_action
from engine.actions import card_of, is_play
from engine.deal import trick_state

from .test_db_support import play_logged

# With this seed, ``valat_policy`` makes team 0 take every trick of the first deal in
# all trumps (35 points, over the target of 30): the target becomes 36, and team 0 wins
# the match two deals later.
VALAT_SEED = 62
VALAT_OPTIONS = Options.make("bulgarian", target_score=30)


def valat_policy(match: Match, rng: random.Random) -> Action:
    """Team 0 bids all trumps and plays its strongest winning card; team 1 passes and
    plays its weakest card, giving the trick away when it can."""
    deal = match.deal
    assert deal is not None
    seat = match.current_player()
    assert seat is not None
    ours = seat % 2 == 0
    legal = match.legal_actions()
    plays = [a for a in legal if is_play(a)]
    if not plays:
        names = {action_name(a) for a in legal}
        if ours and "AT" in names:
            return parse_action("AT")
        return parse_action("pass") if "pass" in names else rng.choice(legal)

    def team0_takes(action: Action) -> bool:
        trick = [*deal.trick, card_of(action)]
        return trick_state(trick, deal.leader, deal.contract)[0] % 2 == 0

    if ours:
        return max(plays, key=lambda a: (team0_takes(a), card_of(a)))
    return min(plays, key=lambda a: (not team0_takes(a), card_of(a)))


async def store_valat_match(database_url: str, match_id: str, seats: Sequence[Seat]) -> None:
    """Play the match above to its end and log it, as a table would, in ``database_url``."""
    db = Database(database_url)
    try:
        await play_logged(Repository(db, MATCH_END), match_id, VALAT_OPTIONS, VALAT_SEED,
                          choose=valat_policy, seats=seats)
    finally:
        await db.dispose()
