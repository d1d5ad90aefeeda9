"""Declarations of Bulgarian Belot: finding them in a hand and deciding which score (RULES §6).

Every combination a hand can declare has a fixed id in :data:`COMBOS`, so an announcement
is a small int like a card; the action log stores it (``ANNOUNCE + id``), so the order of
:data:`COMBOS` is append-only like the action numbers (:mod:`engine.actions`).  Sequences
use the natural order 7..A; carrés rank J > 9 > A > T > K > Q; a card serves in one
combination only.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from enum import StrEnum
from itertools import combinations
from typing import Protocol

from .cards import (
    ACE,
    JACK,
    KING,
    NINE,
    QUEEN,
    RANK_MASK,
    RANKS,
    TEN,
    Mask,
    names,
    parse_card,
)


class DeclarationRules(Protocol):
    """The flags that decide declarations (RULES §9): what a variant with declarations
    answers from :meth:`engine.options.Options.declarations_in`."""

    @property
    def long_run(self) -> str: ...
    @property
    def overlap_policy(self) -> str: ...
    @property
    def declaration_resolution(self) -> str: ...
    @property
    def equal_sequences(self) -> str: ...

CARRE_RANKS = (QUEEN, KING, TEN, ACE, NINE, JACK)  # weakest to strongest
CARRE_VALUE = {QUEEN: 100, KING: 100, TEN: 100, ACE: 100, NINE: 150, JACK: 200}
# A carré's value is said aloud: it names the rank when no other rank is worth as much.
_RANK_BY_VALUE = {
    v: r for r, v in CARRE_VALUE.items() if list(CARRE_VALUE.values()).count(v) == 1
}


class DeclarationKind(StrEnum):
    """What is said aloud of a combination: with its value, all that the other seats
    learn of it before the deal is over (RULES §6.3)."""

    TIERCE = "tierce"
    QUARTE = "quarte"
    QUINT = "quint"  # five cards or more
    CARRE = "carre"


RUN_KINDS = {3: DeclarationKind.TIERCE, 4: DeclarationKind.QUARTE, 5: DeclarationKind.QUINT}


@dataclass(frozen=True, slots=True)
class Combo:
    """One declarable combination: a carré (``length`` 4, ``suit`` None) or a run."""

    id: int
    mask: Mask
    suit: int | None
    length: int
    top: int  # carré: index in CARRE_RANKS; run: natural rank of the top card

    @property
    def is_carre(self) -> bool:
        return self.suit is None

    def value(self, rules: DeclarationRules) -> int:
        if self.is_carre:
            return CARRE_VALUE[CARRE_RANKS[self.top]]
        if self.length == 3:
            return 20
        if self.length == 4:
            return 50
        if self.length == 8 and rules.long_run == "quint_plus_tierce_for_8":
            return 120
        return 100

    @property
    def declaration_kind(self) -> DeclarationKind:
        if self.is_carre:
            return DeclarationKind.CARRE
        return RUN_KINDS[min(self.length, 5)]

    @property
    def rank(self) -> int | None:
        """A carré's rank; None for a run."""
        return CARRE_RANKS[self.top] if self.is_carre else None

    @property
    def public_rank(self) -> int | None:
        """The rank its announcement tells everyone: a carré of jacks or nines by its
        value; None for a run or a carré worth 100 (of Q, K, 10 or A)."""
        return _RANK_BY_VALUE.get(CARRE_VALUE[self.rank]) if self.rank is not None else None

    def kind(self) -> str:
        """Score name: tierce, quarte, quint or carre-X (RECORD.md), the rank shown."""
        if self.rank is not None:
            return "carre-" + RANKS[self.rank]
        return self.declaration_kind.value

    def text(self) -> str:
        """The record's notation: the cards, space-separated."""
        return names(self.mask)


def _build() -> tuple[list[Combo], dict[Mask, int]]:
    combos: list[Combo] = []
    for i, rank in enumerate(CARRE_RANKS):
        combos.append(Combo(len(combos), RANK_MASK[rank], None, 4, i))
    for suit in range(4):
        for length in range(3, 9):
            for start in range(9 - length):
                mask = ((1 << length) - 1) << (suit * 8 + start)
                combos.append(Combo(len(combos), mask, suit, length, start + length - 1))
    return combos, {c.mask: c.id for c in combos}


COMBOS, _ID_BY_MASK = _build()


def _maximal_runs(byte: int) -> tuple[tuple[int, int], ...]:
    """(start, length) of every maximal run of three or more set bits."""
    runs, start = [], None
    for rank in range(9):
        if rank < 8 and byte >> rank & 1:
            start = rank if start is None else start
        elif start is not None:
            if rank - start >= 3:
                runs.append((start, rank - start))
            start = None
    return tuple(runs)


# Per suit, per byte of that suit's cards: the combo ids of its maximal runs.
_RUN_IDS = tuple(
    tuple(
        tuple(_ID_BY_MASK[((1 << n) - 1) << (suit * 8 + start)] for start, n in _maximal_runs(b))
        for b in range(256)
    )
    for suit in range(4)
)


def combo_id(mask: Mask) -> int:
    """The id of the combination made of exactly the cards of ``mask``; KeyError if none."""
    return _ID_BY_MASK[mask]


def parse_combo(text: str) -> int:
    """The id of a combination written as its cards (``"QS KS AS"``); ValueError if none."""
    mask = 0
    for part in text.split(" "):
        mask |= 1 << parse_card(part)
    if mask.bit_count() != len(text.split(" ")) or mask not in _ID_BY_MASK:
        raise ValueError(f"not a declarable combination: {text!r}")
    return _ID_BY_MASK[mask]


def runs_in(mask: Mask) -> list[int]:
    """Combo ids of the maximal runs of three or more in ``mask``."""
    c, d, h, s = _RUN_IDS
    return [*c[mask & 0xFF], *d[(mask >> 8) & 0xFF], *h[(mask >> 16) & 0xFF], *s[mask >> 24]]


def carres_in(mask: Mask) -> list[int]:
    full_ranks = mask & (mask >> 8) & (mask >> 16) & (mask >> 24) & 0xFF  # all four held
    if not full_ranks:
        return []
    return [i for i, rank in enumerate(CARRE_RANKS) if full_ranks >> rank & 1]


def decompositions(hand: Mask, rules: DeclarationRules) -> list[frozenset[int]]:
    """Every full set of combinations the hand may declare (RULES §6.2).

    ``carre_first``: the carrés, then the runs among the other cards.  ``player_choice``:
    also each choice of carrés to give up so that their cards can stand in runs.
    """
    carres = carres_in(hand)
    if not carres:
        return [frozenset(runs_in(hand))]
    keep_sets: Iterable[tuple[int, ...]] = [tuple(carres)]
    if rules.overlap_policy == "player_choice":
        keep_sets = [k for n in range(len(carres) + 1) for k in combinations(carres, n)]
    found = []
    for kept in keep_sets:
        rest = hand
        for i in kept:
            rest &= ~COMBOS[i].mask
        found.append(frozenset(kept) | frozenset(runs_in(rest)))
    return found


def open_combos(full_sets: list[frozenset[int]], announced: frozenset[int]) -> list[int]:
    """Combinations of any full set that contains those already announced, sorted."""
    return sorted({i for full in full_sets if announced <= full for i in full - announced})



Key = tuple[int, ...]
Announcement = tuple[int, int]  # (seat, combo id)


def _sequence_key(combo: Combo, rules: DeclarationRules) -> Key:
    return combo.length, combo.top


def _overall_key(combo: Combo, rules: DeclarationRules) -> Key:
    """`single` resolution: value, then carré over run, then height ([EXE])."""
    if combo.is_carre:
        return combo.value(rules), 1, combo.top, 0
    return combo.value(rules), 0, combo.length, combo.top


def _top_key(combo: Combo, rules: DeclarationRules) -> Key:
    """`single_by_top` (Coinche, COINCHE.md §6.2): value, then carré over run, then the
    top card, whatever a run's length."""
    return combo.value(rules), int(combo.is_carre), combo.top


_SINGLE_KEYS = {"single": _overall_key, "single_by_top": _top_key}


def resolve(
    announced: Sequence[Announcement], trump: int | None, rules: DeclarationRules
) -> tuple[list[int], list[list[int]]]:
    """Which team scores which announced combinations (RULES §6.4).

    ``announced`` is ``(seat, combo id)`` in the order announced; ``trump`` the trump suit
    of a suit contract, else None.  Returns the points per team and the scoring combo ids.
    """
    if not announced:
        return [0, 0], [[], []]
    if rules.declaration_resolution in _SINGLE_KEYS:
        key, categories = _SINGLE_KEYS[rules.declaration_resolution], [list(announced)]
    else:
        key = _sequence_key
        categories = [
            [a for a in announced if not COMBOS[a[1]].is_carre],
            [a for a in announced if COMBOS[a[1]].is_carre],
        ]
    scoring: list[list[int]] = [[], []]
    for entries in categories:
        best = [
            max((key(COMBOS[i], rules) for s, i in entries if s % 2 == team), default=None)
            for team in (0, 1)
        ]
        if best[0] is None and best[1] is None:
            continue
        if best[0] is None or best[1] is None or best[0] != best[1]:
            winner = 0 if best[1] is None or (best[0] is not None and best[0] > best[1]) else 1
        else:
            tied = [(s, i) for s, i in entries if key(COMBOS[i], rules) == best[0]]
            tie_winner = _break_tie(tied, trump, rules)
            if tie_winner is None:
                continue
            winner = tie_winner
        scoring[winner] += [i for s, i in entries if s % 2 == winner]
    points = [sum(COMBOS[i].value(rules) for i in ids) for ids in scoring]
    return points, scoring


def _break_tie(tied: list[Announcement], trump: int | None, rules: DeclarationRules) -> int | None:
    """Equal best sequences: nobody (``cancel``), else trump suit, then first announced."""
    if rules.equal_sequences == "cancel":
        return None
    in_trump = {s % 2 for s, i in tied if trump is not None and COMBOS[i].suit == trump}
    if len(in_trump) == 1:
        return in_trump.pop()
    return tied[0][0] % 2
