"""Actions as small ints, like cards, and their names in the record's notation.

The numbers are a stored format: the server's action log keeps them (docs/storage.md,
"Action numbers"), so the table is append-only.  A number keeps its meaning for good;
a new kind of action takes numbers from a range reserved here or past the last one, and
the unassigned gaps stay unassigned.  ``tests/test_actions.py`` pins it.

=============  ===========================================================================
``0..31``      play that card
``32..63``     play card ``a - 32`` and announce belot with it
``64..69``     bid C D H S NT AT (classic: take or name a suit)
``70 71 72``   pass, double, redouble
``73..79``     unassigned
``80..169``    announce combination ``a - 80`` (:data:`engine.declarations.COMBOS`, whose
               order is stored too); ``END`` = 170
``170..255``   unassigned
``256..321``   reserved: point bids (Coinche), ``POINT_BID + 6 * level + strain``: strain
               C D H S NT AT as the contracts, level 0..8 for 80..160 by 10, 9 capot,
               10 générale
``322 323``    reserved: coinche, surcoinche
=============  ===========================================================================
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

# Reserved for point bids (Coinche), not actions yet: nothing above accepts them.
POINT_BID = 256
POINT_VALUES = tuple(range(80, 161, 10))  # levels 0..8
CAPOT_LEVEL, GENERALE_LEVEL = len(POINT_VALUES), len(POINT_VALUES) + 1
POINT_LEVELS = GENERALE_LEVEL + 1
POINT_BID_END = POINT_BID + POINT_LEVELS * len(CONTRACT_NAMES)
COINCHE, SURCOINCHE = POINT_BID_END, POINT_BID_END + 1

# The stored ranges in order, [first, end): what the tests hold still.
RANGES: tuple[tuple[int, int, str], ...] = (
    (0, BELOT, "card"),
    (BELOT, BID, "card with belot"),
    (BID, PASS, "contract"),
    (PASS, REDOUBLE + 1, "pass, double, redouble"),
    (ANNOUNCE, END, "announcement"),
    (POINT_BID, POINT_BID_END, "point bid (reserved)"),
    (COINCHE, SURCOINCHE + 1, "coinche, surcoinche (reserved)"),
)


def point_bid(level: int, strain: int) -> Action:
    """The number reserved for a point bid: ``level`` 0..10 (80..160, capot, générale),
    ``strain`` a contract C D H S NT AT (0..5)."""
    if not (0 <= level < POINT_LEVELS and 0 <= strain < len(CONTRACT_NAMES)):
        raise ValueError(f"no point bid at level {level!r} in strain {strain!r}")
    return POINT_BID + len(CONTRACT_NAMES) * level + strain

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
    return ANNOUNCE <= action < END


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
