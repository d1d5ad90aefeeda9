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
from collections.abc import Callable, Sequence
from dataclasses import MISSING, dataclass, field, fields
from functools import cache
from operator import itemgetter
from typing import TYPE_CHECKING, Any, ClassVar

from .cards import (
    ALL_TRUMPS,
    BEATS,
    BIT,
    CONTRACT_NAMES,
    FULL_DECK,
    KING,
    NO_TRUMPS,
    POINTS,
    QUEEN,
    RANK_MASK,
    RUFFS,
    SUIT_MASK,
    Mask,
)
from .scoring import LAST_TRICK, REDEAL, MatchProgress

if TYPE_CHECKING:
    from .actions import Action
    from .cards import Contract
    from .deal import Deal
    from .declarations import DeclarationRules
    from .scoring import DealResult, Tally

_KQ = RANK_MASK[KING] | RANK_MASK[QUEEN]
# The cards that may form a belot, per contract: K and Q of the trump suit, of every
# suit in all trumps, none in no trumps.
BELOT_CARDS: tuple[Mask, ...] = (*(_KQ & SUIT_MASK[k] for k in range(4)), 0, _KQ)

Cuts = tuple[Mask, Mask, Mask]


def _cuts(led: int, win_card: int, partner_winning: bool, contract: Contract,
          no_undertrump_partner: bool, must_undertrump: bool) -> Cuts:
    """The legal cards of RULES §5.2/§5.3 as three masks to cut a hand by, in turn: a seat
    may play its cards in the first of them that holds any, else any card.  ``led`` is the
    suit led, ``win_card`` the card winning the trick, ``partner_winning`` whether it is
    the mover's partner's."""
    suit, over = SUIT_MASK[led], BEATS[contract][win_card]
    if contract == ALL_TRUMPS or led == contract:  # follow and beat, else follow
        return suit & over, suit, FULL_DECK
    trumps = RUFFS[contract]
    ruffed = BIT[win_card] & trumps
    if partner_winning:  # follow; a partner's ruff may have to be over-trumped, not under
        return suit, (FULL_DECK & ~trumps | trumps & over
                      if ruffed and no_undertrump_partner else FULL_DECK), FULL_DECK
    if ruffed:  # follow, else over-trump, else (where compulsory) under-trump
        return suit, trumps & over, trumps if must_undertrump else FULL_DECK
    return suit, trumps, FULL_DECK  # follow, else trump


@cache
def cut_table(no_undertrump_partner: bool, must_undertrump: bool) -> tuple[tuple[Cuts, ...], ...]:
    """:func:`_cuts` of every trick per contract, at ``led << 6 | win_card << 1 | p``, where
    ``p`` is 0 when the winning card is the mover's partner's, 1 when an opponent's: one
    lookup instead of the rule's tests, for the legal mask of every card played."""
    return tuple(
        tuple(_cuts(i >> 6, i >> 1 & 31, not i & 1, contract, no_undertrump_partner,
                    must_undertrump) for i in range(256))
        for contract in range(6))


Packet = Callable[[Sequence[int]], tuple[int, ...]] | None  # a seat's cards of a deck


def _packets(start: int, sizes: Sequence[int]) -> tuple[Packet, ...]:
    """Packets of ``sizes`` dealt in turn from ``deck[start]``, seat by seat from the eldest:
    a getter of the seat's cards from a deck (its first place twice, so that even one card
    comes as a tuple), or None for a seat dealt nothing."""
    places: list[list[int]] = [[], [], [], []]
    for i, size in enumerate(sizes):
        places[i % 4] += range(start, start + size)
        start += size
    return tuple(itemgetter(*where, where[0]) if where else None for where in places)


TARGET_FACTOR = 10  # a room's target is at most ten times the variant's usual one


def flag(*values: Any, default: Any = MISSING) -> Any:
    """A house-rule flag: its allowed values, the first the default unless ``default``
    says otherwise; no values for ``target_score`` (a positive integer, in a room up to
    :meth:`max_target`)."""
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
    # How records and views name the contracts 0..5 (coinche: SA and TA for NT and AT).
    strain_names: ClassVar[tuple[str, ...]] = CONTRACT_NAMES
    # Whether a belot in all trumps must be led or follow suit (RULES §6.5).
    belot_follows_in_all_trumps: ClassVar[bool] = True
    # Named sets of flags (COINCHE.md §9.2): a ``preset`` flag picks one, given flags
    # override it.  None for a variant without presets.
    presets: ClassVar[dict[str, dict[str, Any]] | None] = None

    table_direction: str = flag("counterclockwise", "clockwise")
    reshuffle_each_deal: bool = flag(True, False)
    target_score: int = flag(default=0)  # each variant's default: its usual target
    # The ruff rule of RULES §5.3 as legal_cards (and the compiled search) read it, out of
    # the flags: whether a partner's ruff may not be under-trumped, and whether a seat that
    # cannot over-trump the opponents' ruff must still trump.
    no_undertrump_partner: bool = _derived()
    must_undertrump: bool = _derived()
    # The card tables of the rules, per contract then card: the points of each card and
    # the cards that beat it (engine.cards' tables unless the variant values cards its
    # own way), and the cards that may form a belot.  Plain fields, for the hot paths.
    points: tuple[tuple[int, ...], ...] = _derived()
    beats: tuple[tuple[Mask, ...], ...] = _derived()
    belot_cards: tuple[Mask, ...] = _derived()
    # The legal cards of a trick under the ruff rule, per contract (:func:`cut_table`).
    cuts: tuple[tuple[Cuts, ...], ...] = _derived()
    # deal_shape() as getters of each seat's cards (:func:`_packets`), before the auction
    # and after it, per taker from the eldest (who may have a turned card instead of one).
    packets: tuple[Packet, ...] = _derived()
    last_packets: tuple[tuple[Packet, ...], ...] = _derived()

    def __post_init__(self) -> None:
        partner, under = self.ruff_rule()
        object.__setattr__(self, "no_undertrump_partner", partner)
        object.__setattr__(self, "must_undertrump", under)
        object.__setattr__(self, "cuts", cut_table(partner, under))
        before, after = self.deal_shape()
        start = sum(before) + self.turns_card
        object.__setattr__(self, "packets", _packets(0, before))
        object.__setattr__(self, "last_packets", tuple(
            _packets(start, [size - (self.turns_card and seat == taker)
                             for seat, size in enumerate(after)])
            for taker in range(4)))
        object.__setattr__(self, "points", self.point_table())
        object.__setattr__(self, "beats", BEATS)
        object.__setattr__(self, "belot_cards", self.belot_table())

    # ------------------------------------------------------------- flags

    @classmethod
    def make(cls, variant: str | None = None, /, **flags: Any) -> Options:
        """The variant's defaults (then its ``preset``'s flags, where it has presets)
        overridden by ``flags``; ValueError names a bad one (a flag named ``variant``
        too: a record's or a request's options are passed as they come).
        ``Classic.make()`` makes classic rules; ``Options.make()`` Bulgarian ones."""
        from .variants import VARIANTS, find_variant  # the variants import this module

        if variant is None:
            rules = cls if cls is not Options else find_variant("bulgarian")
        else:
            rules = find_variant(variant)
            if cls is not Options and rules is not cls:
                raise ValueError(f"{cls.__name__}.make() makes {cls.variant} rules, "
                                 f"not {variant!r}")
        variant = rules.variant
        table = rules.flag_table()
        for name, value in flags.items():
            if name not in table:
                known = any(name in other.flag_table() for other in VARIANTS.values())
                raise ValueError(f"option {name!r} does not apply to {variant}" if known
                                 else f"unknown option {name!r}")
            default, allowed = table[name]
            if not allowed:
                if type(value) is not int or value < 1:
                    raise ValueError(f"option {name!r} must be a positive integer, "
                                     f"not {value!r}")
            elif value not in allowed or type(value) is not type(default):
                choices = ", ".join(repr(a) for a in allowed)
                raise ValueError(f"option {name!r} must be one of {choices}, not {value!r}")
        if rules.presets is not None:
            preset = flags.get("preset", table["preset"][0])
            flags = rules.presets[preset] | flags
        return rules(**flags)

    @classmethod
    def for_room(cls, variant: str, /, **flags: Any) -> Options:
        """:meth:`make`'s rules for a room (a table, a tournament, a score sheet), whose
        target may not pass :meth:`max_target`; a record may hold any target (COINCHE.md
        §8: "any positive integer")."""
        rules = cls.make(variant, **flags)
        most = rules.max_target()
        if rules.target_score > most:
            raise ValueError(f"option 'target_score' must be an integer from 1 to {most}, "
                             f"not {rules.target_score!r}")
        return rules

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
        """The flags that differ from the variant's defaults (what a record stores).
        With a preset: its name, and every flag that differs from the defaults or from
        the preset, so that reading them back, preset first, gives these rules."""
        table = self.flag_table()
        preset: dict[str, Any] = {}
        if self.presets is not None:
            preset = self.presets[self.applicable()["preset"]]
        return {name: value for name, value in self.applicable().items()
                if value != table[name][0] or (name in preset and value != preset[name])}

    def applicable(self) -> dict[str, Any]:
        """Every flag of this variant, with its value."""
        return {name: getattr(self, name) for name in _flag_names(type(self))}

    # ------------------------------------------------------------- rules

    def deal_shape(self) -> tuple[tuple[int, ...], tuple[int, ...]]:
        """The packets dealt before and after the auction (RULES §3.2)."""
        return self.packets_before, self.packets_after

    @property
    def cards_before_auction(self) -> int:
        """Where the deck stands when the auction starts: the turned card's place."""
        return sum(self.deal_shape()[0])

    def point_table(self) -> tuple[tuple[int, ...], ...]:
        """Each card's points per contract (RULES §1.4)."""
        return POINTS

    def belot_table(self) -> tuple[Mask, ...]:
        """The cards that may form a belot, per contract."""
        return BELOT_CARDS

    def card_total(self, contract: Contract) -> int:
        """A deal's card points, the last trick's 10 included: 162 in a suit."""
        return sum(self.points[contract]) + LAST_TRICK

    def most_belots(self, contract: Contract) -> int:
        """How many belots a deal in ``contract`` may hold: one in a suit (its trump's),
        one per suit in all trumps, none in no trumps."""
        return 4 if contract == ALL_TRUMPS else 0 if contract == NO_TRUMPS else 1

    def card_points(self, tally: Tally) -> tuple[int, int]:
        """The card points a deal's report shows: the tally's, unless the variant gives
        the last trick more on a valat (coinche's capot, COINCHE.md §7.1)."""
        return tally.card_points

    def redouble_multiplier(self) -> int:
        """The multiplier a redouble (or surcoinche) sets."""
        return self.multipliers[-1]

    def out_of_turn(self, deal: Deal) -> tuple[int, ...]:
        """The seats other than the one to move that may act now (Coinche's coinche
        ``any_time``); they may only coinche.  None in most variants."""
        return ()

    def deal_report(self, result: DealResult,
                    totals: tuple[int, int] | None = None) -> dict[str, object]:
        """A deal's result as a replay reports it (RECORD.md); ``totals``, the match's
        after it, only where the variant's report shows them."""
        return result.to_dict()

    def read_summary(self, doc: dict[str, Any]) -> DealResult:
        """A deal's result from its summary (``python -m engine score``): ValueError
        says why the summary cannot come from a real deal."""
        from .summary import trick_summary  # the summary reads options: late import

        return trick_summary(self, doc)

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


@cache
def _flag_names(rules: type[Options]) -> tuple[str, ...]:
    """The flags of a variant's rules, in order: read for every message a table sends."""
    return tuple(f.name for f in fields(rules) if f.init)
