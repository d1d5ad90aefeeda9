"""What one recipient may see: a seat's own view, the public view, redacted action events.

The engine builds both views: a seat's from what that seat may see, the public one from
public facts alone, so a spectator's view never passes through a seat's.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from engine import Action, Match, action_name
from engine.actions import is_announce, is_play

from .contracts import named_view, result_fields
from .events import ActionEvent
from .replays import ResultOut, TrickOut, trick_out
from .vocabulary import Actor


def spectator_view(match: Match) -> dict[str, Any]:
    """The view of someone without a seat, in the shape of a seat's view (docs/protocol.md):
    no seat, no hand, no legal actions, announcements' cards once the deal is over."""
    return named_view(match, match.public_observation().to_dict(), None)


def seat_view(match: Match, seat: int) -> dict[str, Any]:
    """What ``seat`` may see (docs/protocol.md): its hand, the public facts, the actions
    open to it now (a coinche out of turn included)."""
    return named_view(match, match.observation(seat).to_dict(), seat)


def action_events(seat: int, action: Action, by: Actor, trick: TrickOut | None = None,
                  deal_results: list[ResultOut] | None = None,
                  ) -> Callable[[int | None], ActionEvent]:
    """An accepted action's event as each viewer may learn it: an announcement's cards
    stay with the announcer until the deal is over (its kind and value are in the view).
    ``trick`` and ``deal_results`` are the same for everyone (:func:`trick_event`,
    :func:`results`).  Built once per action (twice for an announcement), not once per
    socket of the table."""
    told = ActionEvent(seat=seat, action=action_name(action), by=by, trick=trick,
                       deal_results=deal_results)
    if not is_announce(action):
        return lambda viewer: told
    hidden = ActionEvent(seat=seat, action="announce", by=by, trick=trick,
                         deal_results=deal_results)
    return lambda viewer: told if viewer == seat else hidden


def trick_event(match: Match, action: Action) -> TrickOut | None:
    """The trick ``action``, just applied to ``match``, completed, if it was a trick's
    last card: for that action's event, so that a client shows the trick fall and who
    took it without working it out from two states.

    Its shape is the replay's.  Every seat saw the trick's cards fall, so it is the same
    for everyone, spectators included."""
    deal = match.deal
    if deal is None or not is_play(action) or deal.trick:
        return None  # not a card, or a card into a trick still open
    if not deal.tricks:  # the deal's last trick: the next deal has been dealt
        deal = match.deals[-2]
    leader, cards = deal.tricks[-1]
    return trick_out(leader, cards, deal)


def results(match: Match, finished: int) -> list[ResultOut] | None:
    """The results of the deals ``match`` finished since it had ``finished`` of them, for
    the event of the action that ended them; None if it ended none."""
    return [ResultOut.model_validate(result_fields(r)) for r in match.results[finished:]] or None
