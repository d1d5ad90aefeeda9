"""Actions as small ints, like cards, and their names in the record's notation.

====================  =========================================
``0..31``             play that card
``32..63``            play card ``a - 32`` and announce belot with it
``64..69``            bid C D H S NT AT (classic: take or name a suit)
``70 71 72``          pass, double, redouble
``80..``              announce combination ``a - 80`` (see :mod:`engine.declarations`)
====================  =========================================
"""

from __future__ import annotations

from .cards import CONTRACT_NAMES, card_name, parse_card
from .declarations import COMBOS, parse_combo

Action = int

BELOT = 32
BID = 64
PASS, DOUBLE, REDOUBLE = 70, 71, 72
ANNOUNCE = 80
END = ANNOUNCE + len(COMBOS)

CALL_NAMES = {PASS: "pass", DOUBLE: "double", REDOUBLE: "redouble"}
_CALL_BY_NAME = {name: a for a, name in CALL_NAMES.items()} | {
    name: BID + k for k, name in enumerate(CONTRACT_NAMES)
}


# What kind of action an int is.  The engine's hot paths (engine/deal.py) compare with the
# constants inline; everything else asks these.

def is_play(action: Action) -> bool:
    """A card played, with or without a belot announced."""
    return 0 <= action < BID


def is_belot(action: Action) -> bool:
    """A card played with a belot announced."""
    return BELOT <= action < BID


def card_of(action: Action) -> int:
    """The card a play action puts down."""
    return action - BELOT if action >= BELOT else action


def is_call(action: Action) -> bool:
    """A call of the auction: a contract, pass, double or redouble."""
    return BID <= action <= REDOUBLE


def is_contract(action: Action) -> bool:
    """A call that names a contract (classic: takes or names a suit)."""
    return BID <= action < PASS


def is_announce(action: Action) -> bool:
    """An announced combination (tierce, quarte, quint, carré)."""
    return action >= ANNOUNCE


def action_name(action: Action) -> str:
    """Readable and parseable: ``TH``, ``TH+belot``, ``S``, ``pass``, ``announce QS KS AS``."""
    if 0 <= action < BELOT:
        return card_name(action)
    if BELOT <= action < BID:
        return card_name(action - BELOT) + "+belot"
    if BID <= action < PASS:
        return CONTRACT_NAMES[action - BID]
    if action in CALL_NAMES:
        return CALL_NAMES[action]
    if ANNOUNCE <= action < END:
        return "announce " + COMBOS[action - ANNOUNCE].text()
    raise ValueError(f"not an action: {action!r}")


def parse_action(text: str) -> Action:
    """Inverse of :func:`action_name`; ValueError for anything else."""
    if text in _CALL_BY_NAME:
        return _CALL_BY_NAME[text]
    if text.startswith("announce "):
        return ANNOUNCE + parse_combo(text[len("announce "):])
    if text.endswith("+belot"):
        return BELOT + parse_card(text[:-len("+belot")])
    return parse_card(text)
