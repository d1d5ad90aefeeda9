"""A match: deals in turn, the dealer's rotation, scores, the hanging pool and the winner.

This is the state the bots, the tests and the server share, in the manner of OpenSpiel:
:meth:`Match.current_player`, :meth:`Match.legal_actions`, :meth:`Match.apply_action` and
:meth:`Match.observation`.  Everything follows from the seed (or the decks given).
"""

from __future__ import annotations

import gc
import random
from collections.abc import Iterator, Sequence
from contextlib import contextmanager

from .actions import Action
from .cards import Card
from .deal import OVER, PLAY, Deal
from .errors import GameOverError, IllegalActionError, WrongPhaseError
from .observation import Observation, PublicObservation, observe, observe_public
from .options import Options
from .scoring import REDEAL, DealResult, MatchProgress, after_deal, score_deal

MIN_CUT = 3


@contextmanager
def collector_paused() -> Iterator[None]:
    """The garbage collector off for a replay, back on after if it was on.  A replay keeps
    everything it builds, so the collections its allocations would set off find nothing,
    and cost more the longer the match (measured: docs/benchmarks.md)."""
    was_on = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_on:
            gc.enable()


def cut(cards: Sequence[Card], k: int) -> list[Card]:
    """Move the top ``k`` cards to the bottom."""
    return list(cards[k:]) + list(cards[:k])


class Match:
    """A whole match.  With ``auto_deal`` each next deal is dealt as soon as one ends."""

    def __init__(
        self,
        options: Options | None = None,
        *,
        seed: int | None = None,
        dealer: int | None = None,
        auto_deal: bool = True,
    ) -> None:
        self.options = options or Options.make()
        self.rng = random.Random(seed)
        if dealer not in (None, 0, 1, 2, 3):
            raise ValueError(f"dealer must be a seat 0..3, not {dealer!r}")
        self.first_dealer = self.rng.randrange(4) if dealer is None else dealer
        self.auto_deal = auto_deal
        self.deals: list[Deal] = []
        self.deal: Deal | None = None  # the deal being played, or the last one
        self.results: list[DealResult] = []
        self.progress = MatchProgress((0, 0), self.options.target_score, None)
        self.winner: int | None = None
        self.pool = 0
        if auto_deal:
            self.start_deal()

    # ----------------------------------------------------------------- queries

    @property
    def totals(self) -> tuple[int, int]:
        return self.progress.totals

    @property
    def is_over(self) -> bool:
        return self.winner is not None

    @property
    def next_dealer(self) -> int:
        return self.first_dealer if not self.deals else (self.deals[-1].dealer + 1) % 4

    def current_player(self) -> int | None:
        deal = self.deal
        return None if deal is None else deal.current_player()

    def legal_actions(self) -> list[Action]:
        deal = self.deal
        return [] if deal is None else deal.legal_actions()

    def observation(self, seat: int) -> Observation:
        """What ``seat`` may see now, and nothing else."""
        return observe(self, seat)

    def public_observation(self) -> PublicObservation:
        """What anyone may see now, seated or not: for spectators."""
        return observe_public(self)

    # ----------------------------------------------------------------- dealing

    def next_deck(self) -> list[Card]:
        """The next deck from the match's RNG: shuffled, or gathered and cut (RULES §3.1)."""
        if not self.deals or self.options.reshuffle_each_deal:
            deck = list(range(32))
            self.rng.shuffle(deck)
            return deck
        return cut(self.deals[-1].gathered(), self.rng.randint(MIN_CUT, 32 - MIN_CUT))

    def start_deal(self, deck: Sequence[Card] | None = None) -> Deal:
        if self.is_over:
            raise GameOverError("the match is over")
        if self.deals and not self.deals[-1].is_over:
            raise WrongPhaseError("the current deal is not over")
        if deck is None:
            deck = self.next_deck()
        elif self.deals and not self.options.reshuffle_each_deal:
            gathered = self.deals[-1].gathered()
            if not any(list(deck) == cut(gathered, k) for k in range(MIN_CUT, 33 - MIN_CUT)):
                raise ValueError("deck is not a cut of the previous deal's gathered cards")
        deal = Deal(self.options, self.next_dealer, deck)
        self.deals.append(deal)
        self.deal = deal
        return deal

    # ----------------------------------------------------------------- acting

    def apply_action(self, action: Action, seat: int | None = None) -> None:
        """Apply an action for the player to move (checked); ``seat`` asserts who acts."""
        deal = self.deal
        if deal is None or deal.phase == OVER:
            if self.winner is not None:
                raise GameOverError("the match is over")
            raise WrongPhaseError("no deal is in progress")
        deal.apply(action, seat)
        if deal.phase == OVER:
            self._finish(deal)

    def apply_actions(self, actions: Sequence[tuple[int, Action]], start: int = 0,
                      stop: int | None = None) -> int:
        """Apply ``actions[start:stop]``, ``(seat, action)`` pairs, in turn, each checked as
        :meth:`apply_action` checks it, until one is refused: the index of that one
        (:meth:`apply_action` on it raises why), else ``stop``.  Every replay goes through
        it (records, recovery, the replay API): a run of bare cards through
        :meth:`Deal.play_cards`, the rest through :meth:`apply_action`."""
        end = len(actions) if stop is None else stop
        j = start
        while j < end:
            deal = self.deal
            if deal is not None and deal.phase is PLAY:
                j = deal.play_cards(actions, j, end)
                if deal.phase is OVER:
                    self._finish(deal)
                    continue
                if j == end:
                    break
            seat, action = actions[j]
            try:
                self.apply_action(action, seat)
            except IllegalActionError:
                return j
            j += 1
        return end

    def _finish(self, deal: Deal) -> None:
        if deal.thrown_in:
            result = DealResult(REDEAL, hanging=self.pool)
        else:
            result = score_deal(deal.tally(), self.pool, self.options)
        self.pool = result.hanging
        self.results.append(result)
        self.progress = after_deal(self.progress, result, self.options)
        self.winner = self.progress.winner
        if self.auto_deal and not self.is_over:
            self.start_deal()
