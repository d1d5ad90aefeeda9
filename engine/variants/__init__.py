"""The registered variants: ``VARIANTS`` maps each name to its rules, a subclass of
:class:`engine.options.Options` (as python-chess's ``chess.variant.VARIANTS`` lists its
board classes and OpenSpiel registers its games).  Adding a variant: docs/variants.md.
"""

from __future__ import annotations

from collections.abc import Mapping
from enum import StrEnum
from typing import Any

from ..options import Options
from .bulgarian import Bulgarian
from .classic import Classic
from .coinche import Coinche

VARIANTS: Mapping[str, type[Options]] = {
    rules.variant: rules for rules in (Bulgarian, Classic, Coinche)}

# The registered names, for the API to validate against: one member a variant, made from
# VARIANTS so that registering a variant is all it takes (``Variant.COINCHE``).
Variant = StrEnum("Variant", {name.upper(): name for name in VARIANTS})  # type: ignore[misc]
DEFAULT_VARIANT: Variant = Variant(Bulgarian.variant)  # where a request names none


def find_variant(name: Any) -> type[Options]:
    """The rules registered as ``name``; ValueError for any other name."""
    if not isinstance(name, str) or name not in VARIANTS:
        raise ValueError(f"unknown variant {name!r}")
    return VARIANTS[name]


__all__ = ["DEFAULT_VARIANT", "VARIANTS", "Bulgarian", "Classic", "Coinche", "Variant",
           "find_variant"]
