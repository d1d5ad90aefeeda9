"""Rules of Bulgarian Belot and classic Belote: pure, deterministic and fast.

The public API, in the spirit of OpenSpiel and python-chess::

    match = Match(Options.make("bulgarian"), seed=1)
    while not match.is_over:
        match.apply_action(random.choice(match.legal_actions()))

``match.observation(seat)`` is all a seat may know, ``match.public_observation()`` all
anyone may; :mod:`engine.record` reads and writes ``belote-record/1``;
``python -m engine replay FILE`` checks a record.  Each variant is one module of
:mod:`engine.variants`, registered in :data:`VARIANTS` (docs/variants.md).
"""

from .actions import Action, action_name, parse_action
from .cards import Card, Mask, card_name, parse_card
from .deal import Deal, Phase, legal_cards
from .declarations import DeclarationKind
from .errors import IllegalActionError
from .match import Match
from .observation import Announcement, Observation, PublicObservation
from .options import Options
from .record import RecordError, replay, write_record
from .scoring import DealResult
from .variants import VARIANTS, Variant, find_variant

__all__ = [
    "VARIANTS", "Action", "Announcement", "Card", "Deal", "DealResult", "DeclarationKind",
    "IllegalActionError", "Mask", "Match", "Observation", "Options", "Phase",
    "PublicObservation", "RecordError", "Variant", "action_name", "card_name",
    "find_variant", "legal_cards", "parse_action", "parse_card", "replay", "write_record",
]
