"""The two variants and the house-rule flags of RULES.md §9, with their defaults."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, fields, replace
from enum import StrEnum
from typing import Any


class Variant(StrEnum):
    BULGARIAN = "bulgarian"  # Bulgarian Belot (RULES.md)
    CLASSIC = "classic"  # French Belote


BULGARIAN, CLASSIC = Variant.BULGARIAN, Variant.CLASSIC
VARIANTS = tuple(Variant)

# flag -> (variants it applies to, allowed values); the first value is the default
# unless the variant overrides it in _DEFAULTS.
FLAGS: dict[str, tuple[tuple[str, ...], tuple[Any, ...]]] = {
    "table_direction": (VARIANTS, ("counterclockwise", "clockwise")),
    "reshuffle_each_deal": (VARIANTS, (True, False)),
    "target_score": (VARIANTS, ()),
    "valat_multiplied": ((BULGARIAN,), (True, False)),
    "valat_blocks_win": ((BULGARIAN,), ("raise_target", "extra_deal", "must_score")),
    "declaration_resolution": ((BULGARIAN,), ("per_category", "single")),
    "equal_sequences": ((BULGARIAN,), ("cancel", "trump_then_first")),
    "long_run": ((BULGARIAN,), ("single_quint", "quint_plus_tierce_for_8")),
    "overlap_policy": ((BULGARIAN,), ("carre_first", "player_choice")),
    "undertrump_on_opponent_ruff": ((CLASSIC,), ("compulsory", "optional")),
    "partner_ruff_no_undertrump": ((CLASSIC,), (True, False)),
    "belote_counts_for_contract": ((CLASSIC,), (True, False)),
    "litige": ((CLASSIC,), ("carry", "takers_fail", "takers_make")),
}


TARGETS: dict[str, int] = {BULGARIAN: 151, CLASSIC: 1000}  # each variant's usual target_score
TARGET_FACTOR = 10  # a room's target is at most ten times the usual one


def max_target(variant: str) -> int:
    """The highest ``target_score`` a match may have: the room's limit ([G]) is its
    choice, but a match must end within a sitting."""
    return TARGET_FACTOR * TARGETS[variant]


@dataclass(frozen=True, slots=True)
class Options:
    """A variant and its flags.  Build with :meth:`Options.make` to get validation."""

    variant: str = BULGARIAN
    table_direction: str = "counterclockwise"
    reshuffle_each_deal: bool = True
    target_score: int = 151
    valat_multiplied: bool = True
    valat_blocks_win: str = "raise_target"
    declaration_resolution: str = "per_category"
    equal_sequences: str = "cancel"
    long_run: str = "single_quint"
    overlap_policy: str = "carre_first"
    undertrump_on_opponent_ruff: str = "compulsory"
    partner_ruff_no_undertrump: bool = True
    belote_counts_for_contract: bool = True
    litige: str = "carry"
    classic: bool = field(init=False, repr=False, compare=False)  # hot path: a plain field

    def __post_init__(self) -> None:
        object.__setattr__(self, "classic", self.variant == CLASSIC)

    @classmethod
    def make(cls, variant: str = BULGARIAN, **flags: Any) -> Options:
        """The variant's defaults overridden by ``flags``; ValueError names a bad one."""
        if variant not in VARIANTS:
            raise ValueError(f"unknown variant {variant!r}")
        base = cls(variant=variant)
        if variant == CLASSIC:
            base = replace(base, table_direction="clockwise", target_score=TARGETS[CLASSIC])
        for name, value in flags.items():
            if name not in FLAGS:
                raise ValueError(f"unknown option {name!r}")
            variants, allowed = FLAGS[name]
            if variant not in variants:
                raise ValueError(f"option {name!r} does not apply to {variant}")
            if name == "target_score":
                most = max_target(variant)
                if type(value) is not int or not 1 <= value <= most:
                    raise ValueError(f"option 'target_score' must be an integer from 1 to "
                                     f"{most}, not {value!r}")
            elif value not in allowed or type(value) is not type(allowed[0]):
                choices = ", ".join(repr(a) for a in allowed)
                raise ValueError(f"option {name!r} must be one of {choices}, not {value!r}")
        return replace(base, **flags)

    def changed(self) -> dict[str, Any]:
        """The flags that differ from the variant's defaults (what a record stores)."""
        default = Options.make(self.variant)
        return {
            f.name: getattr(self, f.name)
            for f in fields(self)
            if f.init and f.name != "variant" and getattr(self, f.name) != getattr(default, f.name)
        }

    def applicable(self) -> dict[str, Any]:
        """Every flag that applies to this variant, with its value."""
        values = asdict(self)  # includes the derived `classic`, which is not a flag
        return {name: values[name] for name, (vs, _) in FLAGS.items() if self.variant in vs}
