"""A variant's rules and the values of its house-rule flags (RULES.md §9).

Each variant is a subclass of :class:`Options` in its own module of
:mod:`engine.variants`, registered in ``engine.VARIANTS`` (name -> class), as
python-chess registers its board classes.  The subclass holds the variant's deal shape,
auction, trump rule, declarations, scoring and match end, and declares its flags as
fields made with :func:`flag` (default and allowed values in one place).  An instance
is one table's rules: the engine, the bots and the server ask it, never which variant
it is.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import MISSING, dataclass, field, fields
from typing import TYPE_CHECKING, Any, ClassVar

from .scoring import REDEAL, MatchProgress

if TYPE_CHECKING:
    from .actions import Action
    from .cards import Contract
    from .deal import Deal
    from .declarations import DeclarationRules
    from .scoring import DealResult, Tally

TARGET_FACTOR = 10  # a room's target is at most ten times the variant's usual one


def flag(*values: Any, default: Any = MISSING) -> Any:
    """A house-rule flag: its allowed values, the first the default unless ``default``
    says otherwise; no values for ``target_score`` (an integer up to :meth:`max_target`)."""
    return field(default=values[0] if default is MISSING else default,
                 metadata={"values": values})


def _derived() -> Any:
    """A plain field the rules set once from the flags, for the hot paths to read."""
    return field(init=False, repr=False, compare=False)


@dataclass(frozen=True, slots=True)
class Options(ABC):
    """A variant's rules with its flags' values.  Build with :meth:`Options.make`."""

    variant: ClassVar[str]  # the registered name, as records and the API spell it
    # Deal shape (RULES §3.2): packets to the seats in turn from the eldest, before and
    # after the auction.  A turned card (the one after the first packets) goes to the
    # taker, whose next packet is one card short.
    packets_before: ClassVar[tuple[int, ...]]
    packets_after: ClassVar[tuple[int, ...]]
    turns_card: ClassVar[bool]
    # Auction: the contracts that exist, the multipliers a deal may be played at, how many
    # rounds of four passes throw the deal in, and whether naming a contract ends it
    # (otherwise three passes after a contract do).
    contracts: ClassVar[tuple[Contract, ...]]
    multipliers: ClassVar[tuple[int, ...]]
    auction_rounds: ClassVar[int]
    bid_ends_auction: ClassVar[bool]
    # The contracts whose first trick carries declarations (RULES §6): none for most.
    declaration_contracts: ClassVar[frozenset[Contract]] = frozenset()
    # Card points a point of the score stands for: the bots' and the review's one unit.
    card_scale: ClassVar[int]

    table_direction: str = flag("counterclockwise", "clockwise")
    reshuffle_each_deal: bool = flag(True, False)
    target_score: int = flag(default=0)  # each variant's default: its usual target
    # The ruff rule of RULES §5.3 as legal_cards (and the compiled search) read it, out of
    # the flags: whether a partner's ruff may not be under-trumped, and whether a seat that
    # cannot over-trump the opponents' ruff must still trump.
    no_undertrump_partner: bool = _derived()
    must_undertrump: bool = _derived()

    def __post_init__(self) -> None:
        partner, under = self.ruff_rule()
        object.__setattr__(self, "no_undertrump_partner", partner)
        object.__setattr__(self, "must_undertrump", under)

    # ------------------------------------------------------------- flags

    @classmethod
    def make(cls, variant: str = "bulgarian", **flags: Any) -> Options:
        """The variant's defaults overridden by ``flags``; ValueError names a bad one."""
        from .variants import VARIANTS, find_variant  # the variants import this module

        rules = find_variant(variant)
        table = rules.flag_table()
        for name, value in flags.items():
            if name not in table:
                known = any(name in other.flag_table() for other in VARIANTS.values())
                raise ValueError(f"option {name!r} does not apply to {variant}" if known
                                 else f"unknown option {name!r}")
            default, allowed = table[name]
            if not allowed:
                most = rules.max_target()
                if type(value) is not int or not 1 <= value <= most:
                    raise ValueError(f"option {name!r} must be an integer from 1 to "
                                     f"{most}, not {value!r}")
            elif value not in allowed or type(value) is not type(default):
                choices = ", ".join(repr(a) for a in allowed)
                raise ValueError(f"option {name!r} must be one of {choices}, not {value!r}")
        return rules(**flags)

    @classmethod
    def flag_table(cls) -> dict[str, tuple[Any, tuple[Any, ...]]]:
        """Each flag of the variant, in order: (default, allowed values)."""
        return {f.name: (f.default, f.metadata["values"]) for f in fields(cls) if f.init}

    @classmethod
    def max_target(cls) -> int:
        """The highest ``target_score`` a match may have: the room's limit ([G]) is its
        choice, but a match must end within a sitting."""
        return TARGET_FACTOR * int(cls.flag_table()["target_score"][0])

    def changed(self) -> dict[str, Any]:
        """The flags that differ from the variant's defaults (what a record stores)."""
        table = self.flag_table()
        return {name: value for name, value in self.applicable().items()
                if value != table[name][0]}

    def applicable(self) -> dict[str, Any]:
        """Every flag of this variant, with its value."""
        return {f.name: getattr(self, f.name) for f in fields(self) if f.init}

    # ------------------------------------------------------------- rules

    @property
    def cards_before_auction(self) -> int:
        """Where the deck stands when the auction starts: the turned card's place."""
        return sum(self.packets_before)

    def ruff_rule(self) -> tuple[bool, bool]:
        """(no_undertrump_partner, must_undertrump): a partner's ruff may be under-trumped
        and an opponent's need not be, unless the variant says otherwise."""
        return False, False

    @abstractmethod
    def legal_calls(self, deal: Deal) -> list[Action]:
        """The calls open to the seat to move in ``deal``'s auction, sorted."""

    def declarations_in(self, contract: Contract) -> DeclarationRules | None:
        """How declarations score in ``contract``, or None where there are none."""
        return None

    @abstractmethod
    def score(self, tally: Tally, pool: int) -> tuple[str, tuple[int, int], int]:
        """A played deal's outcome, the points each team scores and the pool it leaves
        hanging (RULES §7), from its raw facts and the pool hanging before it."""

    def after_deal(self, before: MatchProgress, result: DealResult) -> MatchProgress:
        """The match after a deal: the first team past the target wins, unless tied."""
        totals = (before.totals[0] + result.score[0], before.totals[1] + result.score[1])
        target = before.target
        if result.outcome == REDEAL or max(totals) < target or totals[0] == totals[1]:
            return MatchProgress(totals, target, None)
        return MatchProgress(totals, target, 0 if totals[0] > totals[1] else 1)
