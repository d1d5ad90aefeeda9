"""What one recipient may see: a seat's own view, the public view, redacted action events.

The engine builds both views: a seat's from what that seat may see, the public one from
public facts alone, so a spectator's view never passes through a seat's.
"""

from __future__ import annotations

from typing import Any

from engine import Action, Match, action_name
from engine.actions import is_announce


def spectator_view(match: Match) -> dict[str, Any]:
    """The view of someone without a seat, in the shape of a seat's view (docs/protocol.md):
    no seat, no hand, no legal actions, announcements' cards once the deal is over."""
    return match.public_observation().to_dict()


def action_event(seat: int, action: Action, viewer: int | None) -> dict[str, Any]:
    """An accepted action as ``viewer`` may learn it: an announcement's cards stay with
    the announcer until the deal is over (its kind and value are in the view)."""
    hidden = is_announce(action) and viewer != seat
    return {"kind": "action", "seat": seat, "action": "announce" if hidden else action_name(action)}
