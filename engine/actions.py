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
``256..321``   point bids (Coinche), ``POINT_BID + 6 * level + strain``: strain C D H S
               SA TA as the contracts (SA = NT, TA = AT), level 0..8 for 80..160 by
               10, 9 capot, 10 générale; named ``80H``, ``120SA``, ``capotS``,
               ``generaleD`` (COINCHE.md §10.2)
``322 323``    coinche, surcoinche
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

# Point bids (Coinche, COINCHE.md §4.1): numbers in value order, then strain order.
POINT_BID = 256
POINT_VALUES = tuple(range(80, 161, 10))  # levels 0..8
CAPOT_LEVEL, GENERALE_LEVEL = len(POINT_VALUES), len(POINT_VALUES) + 1
POINT_LEVELS = GENERALE_LEVEL + 1
POINT_BID_END = POINT_BID + POINT_LEVELS * len(CONTRACT_NAMES)
COINCHE, SURCOINCHE = POINT_BID_END, POINT_BID_END + 1
STRAIN_NAMES = ("C", "D", "H", "S", "SA", "TA")  # a point bid's strain, as records write it
CAPOT_VALUE, GENERALE_VALUE = 250, 500  # the values capot and générale rank as

# The stored ranges in order, [first, end): what the tests hold still.
RANGES: tuple[tuple[int, int, str], ...] = (
    (0, BELOT, "card"),
    (BELOT, BID, "card with belot"),
    (BID, PASS, "contract"),
    (PASS, REDOUBLE + 1, "pass, double, redouble"),
    (ANNOUNCE, END, "announcement"),
    (POINT_BID, POINT_BID_END, "point bid"),
    (COINCHE, SURCOINCHE + 1, "coinche, surcoinche"),
)


def point_bid(level: int, strain: int) -> Action:
    """The number reserved for a point bid: ``level`` 0..10 (80..160, capot, générale),
    ``strain`` a contract C D H S NT AT (0..5)."""
    if not (0 <= level < POINT_LEVELS and 0 <= strain < len(CONTRACT_NAMES)):
        raise ValueError(f"no point bid at level {level!r} in strain {strain!r}")
    return POINT_BID + len(CONTRACT_NAMES) * level + strain


def point_value(action: Action) -> int:
    """The value a point bid ranks as: 80..160, capot 250, générale 500 (§4.1)."""
    level = (action - POINT_BID) // len(CONTRACT_NAMES)
    if level < CAPOT_LEVEL:
        return POINT_VALUES[level]
    return CAPOT_VALUE if level == CAPOT_LEVEL else GENERALE_VALUE


def _point_bid_name(action: Action) -> str:
    level, strain = divmod(action - POINT_BID, len(CONTRACT_NAMES))
    value = ("capot" if level == CAPOT_LEVEL else "generale" if level == GENERALE_LEVEL
             else str(POINT_VALUES[level]))
    return value + STRAIN_NAMES[strain]


CALL_NAMES = {PASS: "pass", DOUBLE: "double", REDOUBLE: "redouble", COINCHE: "coinche",
              SURCOINCHE: "surcoinche"}
_CALL_BY_NAME = {name: a for a, name in CALL_NAMES.items()} | {
    name: BID + k for k, name in enumerate(CONTRACT_NAMES)
} | {_point_bid_name(a): a for a in range(POINT_BID, POINT_BID_END)}


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
    """A call of the auction: a contract or point bid, pass, double, redouble, coinche
    or surcoinche."""
    return BID <= action <= REDOUBLE or POINT_BID <= action <= SURCOINCHE


def is_contract(action: Action) -> bool:
    """A call that names a contract (classic: takes or names a suit; coinche: a point
    bid)."""
    return BID <= action < PASS or POINT_BID <= action < POINT_BID_END


def contract_of(action: Action) -> int:
    """The contract (trump strain 0..5) a contract call names."""
    if action >= POINT_BID:
        return (action - POINT_BID) % len(CONTRACT_NAMES)
    return action - BID


def call_order(action: Action) -> tuple[int, int]:
    """Where a call is listed: contracts and point bids in their order (value, then
    strain), then pass, double, redouble, coinche, surcoinche (COINCHE.md §10.3)."""
    return (0 if is_contract(action) else 1), action


def is_announce(action: Action) -> bool:
    """An announced combination (tierce, quarte, quint, carré)."""
    return ANNOUNCE <= action < END


def action_name(action: Action) -> str:
    """Readable and parseable: ``TH``, ``TH+belot``, ``S``, ``pass``, ``120SA``,
    ``coinche``, ``announce QS KS AS``."""
    if 0 <= action < BELOT:
        return card_name(action)
    if BELOT <= action < BID:
        return card_name(action - BELOT) + "+belot"
    if BID <= action < PASS:
        return CONTRACT_NAMES[action - BID]
    if POINT_BID <= action < POINT_BID_END:
        return _point_bid_name(action)
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
