"""How a contract is told to clients: the engine's contract int names a trump strain, and
a Coinche contract is also a bid (COINCHE.md §10.3): ``"contract": "120H"`` with its
``value`` (80..160, capot 250, générale 500), beside the ``multiplier`` (2 coinched, 4 or 3
surcoinched).  The other variants' contracts keep their names (``"H"``, ``"NT"``) and a
null ``value``.

Views, deal results, replays and the history all pass through here, so that every page
names a Coinche contract the same way; the seat's view also gets the coinche it may make
out of turn (``coinche_timing = any_time``, §4.3), which the engine allows to a seat that
is not to move.  Nothing here is secret: the standing bid, its value and who may coinche
are what every seat heard.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from engine import Match
from engine.actions import (
    CAPOT_LEVEL,
    CAPOT_VALUE,
    GENERALE_LEVEL,
    GENERALE_VALUE,
    POINT_VALUES,
    action_name,
    point_bid,
    point_value,
)
from engine.cards import CONTRACT_NAMES
from engine.scoring import DealResult


def contract_name(contract: int | None, value: int | None) -> str | None:
    """``"H"`` for another variant's contract, ``"120H"``, ``"capotS"`` for a Coinche bid
    of ``value`` in strain ``contract``; None without a contract."""
    if contract is None:
        return None
    if value is None:
        return CONTRACT_NAMES[contract]
    level = (CAPOT_LEVEL if value == CAPOT_VALUE else GENERALE_LEVEL if value == GENERALE_VALUE
             else POINT_VALUES.index(value))
    return action_name(point_bid(level, contract))


def result_fields(result: DealResult) -> dict[str, Any]:
    """A deal's result as RECORD.md's per-deal object, its contract named as a bid where
    it was one, with its ``value``."""
    return result.to_dict() | {"contract": contract_name(result.contract, result.value),
                               "value": result.value}


@lru_cache(maxsize=8192)
def _shown_result(result: DealResult) -> dict[str, Any]:
    """:func:`result_fields` for the views, made once a result (a finished deal's never
    changes): every message a table sends shows all of its match's results.  Shared by
    those messages, so read only."""
    return result_fields(result)


def named_view(match: Match, view: dict[str, Any], seat: int | None) -> dict[str, Any]:
    """``view`` (an observation's dict, ``seat``'s or the public one) with the standing
    bid named and valued, the deals' results named, and, for a seat that may coinche out of
    turn, that coinche among its legal actions."""
    deal = match.deal
    bid = -1 if deal is None else deal.bid
    if bid >= 0:
        view["contract"], view["value"] = action_name(bid), point_value(bid)
    else:
        view["value"] = None
    view["results"] = [_shown_result(r) for r in match.results]
    if seat is not None and deal is not None and not view["legal_actions"]:
        view["legal_actions"] = [action_name(a) for a in deal.legal_actions_of(seat)]
    return view
