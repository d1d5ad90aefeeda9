"""What a rated match's end does to ratings beyond the model, so that they cannot be
farmed (issue #29; docs/ratings.md, "Integrity"): who takes the loss when someone left or
timed out, whether the match was really played, how repeated matches between the same
accounts are damped, and which accounts an operator should look at.

Pure: no I/O.  app/db/ratings.py reads what these rules need (who left, who acted, the
pair's recent matches) in the transaction that ends the match, and applies them.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass

from . import ratings
from .vocabulary import EndReason

# A human who acted by themselves (not the timer, not a bot covering them) fewer times
# than this did not really play: such a player gains nothing from a match, and its
# opponents lose nothing to it (rated_seats).  A deal gives each seat eight cards to play
# besides its bids: about one deal.
REAL_PLAY_ACTIONS = 8
# Rated matches between the same opposing accounts in one variant within the window: the
# first REPEATS_IN_FULL count fully, each one after moves ratings half as much as the one
# before, and past REPEATS_RATED they move nothing.
REPEAT_WINDOW_SECONDS = 24 * 3600
REPEATS_IN_FULL = 3
REPEATS_RATED = 6
# Flagged for an operator: at least this many wins at rated tables given by the other
# team's forfeit or leaving, and more than this share of all the account's wins there.
FLAG_MIN_FORFEIT_WINS = 10
FLAG_SHARE = 0.5

Seat = int  # 0 to 3; team seat % 2, place in the team seat // 2


@dataclass(frozen=True, slots=True)
class Verdict:
    """Who a rated match's end rates how.  ``blamed``: the seats whose human left during
    the match or timed out at a forfeit table, the first to quit first; the first one's
    team is the ``loser``.  Each blamed seat takes a loss; nobody else on its team is
    hurt (a partner who stayed keeps their rating); the other team's seats that stayed
    win.  With nobody blamed (a match played out) the losing team loses, the other wins."""

    loser: int
    blamed: tuple[Seat, ...] = ()

    @property
    def walkover(self) -> bool:
        """Decided by a player leaving or timing out, not by the cards."""
        return bool(self.blamed)

    @property
    def losing(self) -> frozenset[Seat]:
        """The seats that take a loss."""
        if self.blamed:
            return frozenset(self.blamed)
        return frozenset(seat for seat in range(4) if seat % 2 == self.loser)

    @property
    def winning(self) -> frozenset[Seat]:
        """The seats that take a win."""
        return frozenset(seat for seat in range(4)
                         if seat % 2 != self.loser and seat not in self.blamed)


def verdict(reason: EndReason, winner: int | None, left: Sequence[Seat],
            forfeited: Seat | None) -> Verdict | None:
    """The verdict of a match's end: ``left``, the seats whose human left during it in
    the order they left; ``forfeited``, the seat whose turn timed out at a forfeit table
    (the last to quit: that ended it).  None when nobody can be blamed for an abandoned
    match (it closes only once its humans have all left, so never in practice)."""
    blamed = tuple(dict.fromkeys([*left, *([] if forfeited is None else [forfeited])]))
    if blamed:
        return Verdict(blamed[0] % 2, blamed)
    if reason == EndReason.ABANDONED or winner is None:
        return None
    return Verdict(1 - winner)


def rated_seats(verdict: Verdict, humans: Collection[Seat],
                own_actions: Mapping[Seat, int], *, first_deal: bool) -> frozenset[Seat]:
    """The humans' seats whose rating the match moves.  A human has played once it acted
    by itself (not the timer, not a bot covering it) REAL_PLAY_ACTIONS times.

    A match that ended in its first deal before every human it would rate played rates
    nobody (an abort, as Lichess's before the first moves).  After that, the losers take
    their loss when every human of the winning side played: their own count no longer
    spares them, so a player cannot stay below it and act for the first time only once
    the match is won.  The winners who played take their win when every human of the
    losing side played too: an opponent who never acted, or a partner who let the timer
    play, gives them nothing."""
    def played(seat: Seat) -> bool:
        return seat not in humans or own_actions.get(seat, 0) >= REAL_PLAY_ACTIONS

    if first_deal and not all(map(played, verdict.losing | verdict.winning)):
        return frozenset()
    seats: set[Seat] = set()
    if all(map(played, verdict.winning)):
        seats |= verdict.losing
    if all(map(played, verdict.losing)):
        seats |= {seat for seat in verdict.winning if played(seat)}
    return frozenset(seat for seat in seats if seat in humans)


def repeat_factor(before: int) -> float:
    """How much a rated match moves ratings when its opposing accounts already met in
    ``before`` rated matches of the variant within REPEAT_WINDOW_SECONDS (the most any
    pair of them did): 1, 1, 1, then 1/2, 1/4, 1/8, then 0."""
    k = before + 1
    if k <= REPEATS_IN_FULL:
        return 1.0
    if k > REPEATS_RATED:
        return 0.0
    return 0.5 ** (k - REPEATS_IN_FULL)


def settle(teams: tuple[ratings.Team, ratings.Team], verdict: Verdict,
           rated: Collection[Seat], factor: float = 1.0) -> dict[Seat, ratings.Rating]:
    """The rating after the match of each seat in ``rated`` (:func:`rated_seats`), its
    change scaled by ``factor``; the others keep theirs.  A loser is rated as its team
    losing to the other; bots come back unchanged."""
    outcomes = {team: ratings.forfeit(teams, left=team) for team in (0, 1)}
    new = {seat: outcomes[seat % 2][seat % 2][seat // 2]
           for seat in verdict.losing if seat in rated}
    new |= {seat: outcomes[verdict.loser][seat % 2][seat // 2]
            for seat in verdict.winning if seat in rated}
    return {seat: damped(teams[seat % 2][seat // 2], after, factor)
            for seat, after in new.items()}


def damped(before: ratings.Rating, after: ratings.Rating, factor: float) -> ratings.Rating:
    """``after`` moved back towards ``before``: its change in mu and sigma times ``factor``."""
    if factor == 1.0 or before.bot:
        return after
    return ratings.Rating(before.mu + factor * (after.mu - before.mu),
                          before.sigma + factor * (after.sigma - before.sigma))


def flagged(forfeit_wins: int, wins: int) -> bool:
    """Whether an account's wins at rated tables (``wins``, counted in its rating or not)
    are mostly the other team's forfeits or departures (``forfeit_wins`` of them), over
    enough of them to mean something."""
    return forfeit_wins >= FLAG_MIN_FORFEIT_WINS and forfeit_wins > FLAG_SHARE * wins
