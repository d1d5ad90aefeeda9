"""Cards as small ints, hands as 32-bit masks, and the lookup tables built from them.

A card is ``suit * 8 + rank``: ranks in natural order ``7 8 9 T J Q K A`` (0..7), suits
``C D H S`` (0..3).  A set of cards is an int whose bit ``c`` is set when card ``c`` is in
it.  Strings exist only at the edges (:func:`parse_card`, :func:`card_name`).
"""

from __future__ import annotations

from collections.abc import Iterator

Card = int
Mask = int
Suit = int
Contract = int

RANKS = "789TJQKA"
SUITS = "CDHS"
SEVEN, EIGHT, NINE, TEN, JACK, QUEEN, KING, ACE = range(8)
CLUBS, DIAMONDS, HEARTS, SPADES = range(4)

# Contracts: a trump suit (0..3), no trumps, all trumps.  Also the bid ladder order.
NO_TRUMPS, ALL_TRUMPS = 4, 5
CONTRACT_NAMES = ("C", "D", "H", "S", "NT", "AT")

FULL_DECK: Mask = (1 << 32) - 1
BIT: tuple[Mask, ...] = tuple(1 << c for c in range(32))  # looked up, not shifted: no new int
SUIT_MASK: tuple[Mask, ...] = tuple(0xFF << (8 * s) for s in range(4))
RANK_MASK: tuple[Mask, ...] = tuple(sum(1 << (s * 8 + r) for s in range(4)) for r in range(8))

# Strength within a suit (higher is stronger) and card points, by rank (RULES §1.3, §1.4).
TRUMP_STRENGTH = (0, 1, 6, 4, 7, 2, 3, 5)  # J 9 A T K Q 8 7
PLAIN_STRENGTH = (0, 1, 2, 6, 3, 4, 5, 7)  # A T K Q J 9 8 7
TRUMP_POINTS = (0, 0, 14, 10, 20, 3, 4, 11)
PLAIN_POINTS = (0, 0, 0, 10, 2, 3, 4, 11)

CARD_NAMES: tuple[str, ...] = tuple(RANKS[c & 7] + SUITS[c >> 3] for c in range(32))


def card_name(card: Card) -> str:
    return CARD_NAMES[card]


def parse_card(text: str) -> Card:
    """``"TH"`` -> ten of hearts.  Raises ValueError for anything else."""
    if len(text) != 2 or text[0] not in RANKS or text[1] not in SUITS:
        raise ValueError(f"not a card: {text!r}")
    return SUITS.index(text[1]) * 8 + RANKS.index(text[0])


def cards_of(mask: Mask) -> Iterator[Card]:
    """The cards of a mask, lowest first."""
    while mask:
        low = mask & -mask
        yield low.bit_length() - 1
        mask ^= low


_SUIT_CARDS = tuple(
    tuple(tuple(suit * 8 + r for r in range(8) if byte >> r & 1) for byte in range(256))
    for suit in range(4)
)


def card_list(mask: Mask) -> list[Card]:
    """The cards of a mask as a list, lowest first (faster than :func:`cards_of`)."""
    c, d, h, s = _SUIT_CARDS
    return [
        *c[mask & 0xFF], *d[(mask >> 8) & 0xFF], *h[(mask >> 16) & 0xFF], *s[mask >> 24]
    ]


_SUIT_NAMES = tuple(tuple(tuple(CARD_NAMES[c] for c in cards) for cards in suit)
                    for suit in _SUIT_CARDS)


def card_names(mask: Mask) -> list[str]:
    """The names of a mask's cards, lowest first: a hand as a view shows it."""
    c, d, h, s = _SUIT_NAMES
    return [
        *c[mask & 0xFF], *d[(mask >> 8) & 0xFF], *h[(mask >> 16) & 0xFF], *s[mask >> 24]
    ]


def mask_of(cards: Iterator[Card] | list[Card] | tuple[Card, ...]) -> Mask:
    mask = 0
    for card in cards:
        mask |= 1 << card
    return mask


def names(mask: Mask) -> str:
    """Space-separated card names, by suit then rank."""
    return " ".join(card_names(mask))


def is_trump(card: Card, contract: Contract) -> bool:
    return contract == ALL_TRUMPS or card >> 3 == contract


def _trumps(contract: Contract) -> Mask:
    if contract == ALL_TRUMPS:
        return FULL_DECK
    return SUIT_MASK[contract] if contract < NO_TRUMPS else 0


def _strength(card: Card, contract: Contract) -> int:
    table = TRUMP_STRENGTH if is_trump(card, contract) else PLAIN_STRENGTH
    return table[card & 7]


def _beats(best: Card, contract: Contract) -> Mask:
    """Every card that, played now, would take the trick from ``best`` (RULES §1.6)."""
    same_suit = SUIT_MASK[best >> 3]
    stronger = mask_of(
        c for c in cards_of(same_suit) if _strength(c, contract) > _strength(best, contract)
    )
    ruff = SUIT_MASK[contract] if contract < NO_TRUMPS and best >> 3 != contract else 0
    return stronger | ruff


# Per contract, per card.  ``BEATS[k][c]`` also answers "which of my cards are higher".
TRUMPS: tuple[Mask, ...] = tuple(_trumps(k) for k in range(6))
RUFFS: tuple[Mask, ...] = tuple(SUIT_MASK[k] if k < NO_TRUMPS else 0 for k in range(6))
POINTS: tuple[tuple[int, ...], ...] = tuple(
    tuple((TRUMP_POINTS if is_trump(c, k) else PLAIN_POINTS)[c & 7] for c in range(32))
    for k in range(6)
)
STRENGTH: tuple[tuple[int, ...], ...] = tuple(
    tuple(_strength(c, k) for c in range(32)) for k in range(6)
)
BEATS: tuple[tuple[Mask, ...], ...] = tuple(
    tuple(_beats(c, k) for c in range(32)) for k in range(6)
)
