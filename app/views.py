"""What one recipient may see: a seat's own view, the public view, redacted action events.

The engine's observation already hides other hands; these functions only remove what a
seat's observation shows to that seat alone, for spectators and for other seats.
"""

from __future__ import annotations

from typing import Any

from engine import Action, Observation, action_name
from engine.actions import ANNOUNCE


def public_view(observation: Observation) -> dict[str, Any]:
    """The view of someone without a seat: no hand, no legal actions, the cards of this
    deal's announcements only once it is over (as every seat sees them then)."""
    view = observation.to_dict()
    view["seat"] = None
    view["hand"] = []
    view["legal_actions"] = []
    if observation.phase != "over":
        for announcement in view["announcements"]:
            announcement["cards"] = None
    return view


def action_event(seat: int, action: Action, viewer: int | None) -> dict[str, Any]:
    """An accepted action as ``viewer`` may learn it: an announcement's cards stay with
    the announcer until the deal is over (its kind and value are in the view)."""
    hidden = action >= ANNOUNCE and viewer != seat
    return {"kind": "action", "seat": seat, "action": "announce" if hidden else action_name(action)}
