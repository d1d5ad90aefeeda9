"""What one recipient may see: a seat's own view, the public view, redacted action events.

The engine builds both views: a seat's from what that seat may see, the public one from
public facts alone, so a spectator's view never passes through a seat's.
"""

from __future__ import annotations

from typing import Any

from engine import Action, Match, action_name
from engine.actions import is_announce, is_play

from .replays import trick_out


def spectator_view(match: Match) -> dict[str, Any]:
    """The view of someone without a seat, in the shape of a seat's view (docs/protocol.md):
    no seat, no hand, no legal actions, announcements' cards once the deal is over."""
    return match.public_observation().to_dict()


def action_event(seat: int, action: Action, viewer: int | None) -> dict[str, Any]:
    """An accepted action as ``viewer`` may learn it: an announcement's cards stay with
    the announcer until the deal is over (its kind and value are in the view)."""
    hidden = is_announce(action) and viewer != seat
    return {"kind": "action", "seat": seat, "action": "announce" if hidden else action_name(action)}


def trick_event(match: Match, action: Action) -> dict[str, Any]:
    """``{"trick": ...}`` when ``action``, just applied to ``match``, was the card that
    completed a trick, else ``{}``: to merge into that action's event, so that a client
    shows the trick fall and who took it without working it out from two states.

    Its shape is the replay's :class:`TrickOut`.  Every seat saw the trick's cards fall,
    so it is the same for everyone, spectators included."""
    deal = match.deal
    if deal is None or not is_play(action) or deal.trick:
        return {}  # not a card, or a card into a trick still open
    if not deal.tricks:  # the deal's last trick: the next deal has been dealt
        deal = match.deals[-2]
    leader, cards = deal.tricks[-1]
    return {"trick": trick_out(leader, cards, deal.contract).model_dump()}
