"""Scoring of a finished deal and the end of a match (RULES §7, §8), as pure functions:
the shapes and helpers every variant shares; each variant's own rules are in its module
of :mod:`engine.variants`."""

from __future__ import annotations

from dataclasses import MISSING, dataclass, fields
from typing import TYPE_CHECKING, Any, TypeVar

from .cards import ALL_TRUMPS, CONTRACT_NAMES, NO_TRUMPS, Contract

if TYPE_CHECKING:
    from .options import Options

_T = TypeVar("_T")


def slot_init(cls: type[_T]) -> type[_T]:
    """A frozen, slotted dataclass given an ``__init__`` that fills its slots through their
    descriptors instead of ``object.__setattr__`` (whose lookups make it four times the
    cost): the same fields, defaults and object.  A replay makes three of these a deal."""
    params, body, scope = [], [], {}
    for f in fields(cls):  # type: ignore[arg-type]
        assert f.default_factory is MISSING and f.init and not f.kw_only
        scope[f"_set_{f.name}"] = vars(cls)[f.name].__set__
        if f.default is MISSING:
            params.append(f.name)
        else:
            scope[f"_default_{f.name}"] = f.default
            params.append(f"{f.name}=_default_{f.name}")
        body.append(f"    _set_{f.name}(self, {f.name})")
    assert not hasattr(cls, "__post_init__")
    source = f"def __init__(self, {', '.join(params)}):\n" + "\n".join(body)
    exec(source, scope)  # as dataclasses itself makes __init__
    init: Any = scope["__init__"]
    init.__qualname__ = f"{cls.__qualname__}.__init__"
    init.__annotations__ = cls.__init__.__annotations__
    cls.__init__ = init  # type: ignore[method-assign]
    return cls


MADE, FAILED, HANGING, REDEAL, UNFINISHED = "made", "failed", "hanging", "redeal", "unfinished"
VALAT_BONUS = 90
LAST_TRICK = 10
CARD_TOTAL = {NO_TRUMPS: 130, ALL_TRUMPS: 258}  # card points + last trick; suits: 162


def card_total(contract: Contract) -> int:
    return CARD_TOTAL.get(contract, 162)


@slot_init
@dataclass(frozen=True, slots=True)
class DealResult:
    """What a deal did, in the shape of RECORD.md's per-deal replay object."""

    outcome: str
    contract: Contract | None = None
    bidder: int | None = None  # seat
    multiplier: int | None = None
    card_points: tuple[int, int] = (0, 0)
    declarations: tuple[int, int] = (0, 0)
    belot: tuple[int, int] = (0, 0)
    valat: int | None = None
    score: tuple[int, int] = (0, 0)
    hanging: int = 0
    value: int | None = None  # a point bid's value (coinche), else None

    def to_dict(self) -> dict[str, object]:
        return {
            "outcome": self.outcome,
            "contract": None if self.contract is None else CONTRACT_NAMES[self.contract],
            "bidder": self.bidder,
            "multiplier": self.multiplier,
            "card_points": list(self.card_points),
            "declarations": list(self.declarations),
            "belot": list(self.belot),
            "valat": self.valat,
            "score": list(self.score),
            "hanging": self.hanging,
        }


def round_tens(points: int, contract: Contract, low: bool) -> int:
    """One team's raw points in tens (RULES §7.2); ``low`` for the team with fewer points."""
    q, r = divmod(points, 10)
    if contract == NO_TRUMPS:
        up = r >= 5
    elif contract == ALL_TRUMPS:
        up = r >= 5 or (r == 4 and low)
    else:
        up = r >= 7 or (r == 6 and low)
    return q + up


def round_total(total: int) -> int:
    return (total + 5) // 10


@slot_init
@dataclass(frozen=True, slots=True)
class Tally:
    """The raw facts of a played deal, from which either variant's score follows."""

    contract: Contract
    bidder: int  # seat
    multiplier: int
    card_points: tuple[int, int]  # cards + last trick, before NT doubling
    declarations: tuple[int, int]  # points of the declarations that scored
    belots: tuple[int, int]  # how many belots each team announced
    valat: int | None
    value: int = 0  # the point bid's value (coinche: 80..160, 250, 500), else 0
    solo: bool = False  # the declarer took every trick himself (coinche's générale)


def score_deal(tally: Tally, carry_in: int, options: Options) -> DealResult:
    """A played deal's result under ``options``, the pool ``carry_in`` hanging before it."""
    outcome, points, carry_out = options.score(tally, carry_in)
    return DealResult(
        outcome=outcome,
        contract=tally.contract,
        bidder=tally.bidder,
        multiplier=tally.multiplier,
        card_points=options.card_points(tally),
        declarations=tally.declarations,
        belot=(20 * tally.belots[0], 20 * tally.belots[1]),
        valat=tally.valat,
        score=points,
        hanging=carry_out,
        value=tally.value or None,
    )


@slot_init
@dataclass(frozen=True, slots=True)
class MatchProgress:
    totals: tuple[int, int]
    target: int
    winner: int | None


def after_deal(
    before: MatchProgress, result: DealResult, options: Options
) -> MatchProgress:
    """Add a played deal to the match and decide whether it is over (RULES §7.8, §8.3)."""
    return options.after_deal(before, result)
