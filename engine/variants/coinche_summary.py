"""A Coinche deal scored from its summary (``python -m engine score``, COINCHE.md §10.4),
refusing what cannot come from a real deal."""

from __future__ import annotations

from functools import cache
from typing import TYPE_CHECKING, Any

from ..actions import CAPOT_VALUE, GENERALE_VALUE, contract_of, parse_action, point_value
from ..scoring import LAST_TRICK, DealResult, Tally, score_deal
from ..summary import declaration_points, pair
from .coinche import SA

if TYPE_CHECKING:
    from .coinche import Coinche

_KEYS = {"variant", "options", "contract", "bidder_team", "coinche", "card_points", "belot",
         "declarations", "capot", "declarer_all_tricks"}
DEAL_POINTS = 162  # card points and dix de der of a deal no team took whole (§7.1)


@cache
def _reachable(values: tuple[int, ...]) -> frozenset[int]:
    """Every card-point total some set of cards can hold, with these values."""
    sums = 1
    for value in values:
        sums |= sums << value
    return frozenset(v for v in range(sums.bit_length()) if sums >> v & 1)


def read_summary(rules: Coinche, doc: dict[str, Any]) -> DealResult:
    """The per-deal result of a summary, its ``bidder`` None; ValueError says why the
    summary is impossible."""
    if unknown := set(doc) - _KEYS:
        raise ValueError(f"unknown key {sorted(unknown)[0]!r}")
    name = doc.get("contract")
    try:
        bid = parse_action(name) if isinstance(name, str) else -1
    except ValueError:
        bid = -1
    if bid not in rules.bids:
        last = "generale" if rules.generale else "capot"
        strains = " ".join(rules.strain_names[k] for k in rules.strains())
        raise ValueError(f"contract must be a bid these options allow (80 to 160, or {last}, "
                         f"then one of {strains}), not {name!r}")
    value, strain = point_value(bid), contract_of(bid)
    bidder = doc.get("bidder_team")
    if type(bidder) is not int or bidder not in (0, 1):
        raise ValueError(f"bidder_team must be 0 or 1, not {bidder!r}")
    level = doc.get("coinche", 0)
    if type(level) is not int or level not in (0, 1, 2):
        raise ValueError(f"coinche must be 0, 1 or 2, not {level!r}")
    points = pair(doc, "card_points")
    capot = doc.get("capot")
    if capot is not None and (type(capot) is not int or capot not in (0, 1)):
        raise ValueError(f"capot must be 0, 1 or null, not {capot!r}")
    solo = doc.get("declarer_all_tricks", False)
    if type(solo) is not bool:
        raise ValueError("declarer_all_tricks must be true or false")
    if solo and capot != bidder:
        raise ValueError("the declarer took every trick, so his team is the capot team")
    raw = _check_points(rules, points, capot, value, strain)
    announced = doc.get("declarations", [[], []])
    if announced != [[], []] and rules.declarations_in(strain) is None:
        why = "in SA" if strain == SA else "with the flag announcements false"
        raise ValueError(f"no announcements score {why}")
    declarations = declaration_points(announced, strain, rules)
    belots = pair(doc, "belot", default=[0, 0])
    most = rules.most_belots(strain)
    if sum(belots) > most:
        raise ValueError(f"at most {most} belote{'s' * (most != 1)} in "
                         f"{rules.strain_names[strain]}")
    multiplier = (1, 2, rules.surcoinche_multiplier)[level]
    tally = Tally(strain, bidder, multiplier, raw, declarations, (belots[0], belots[1]),
                  capot, value=value, solo=solo)
    result = score_deal(tally, 0, rules)
    return DealResult(**{**{f: getattr(result, f) for f in result.__slots__}, "bidder": None})


def capot_points(rules: Coinche, value: int) -> int:
    """The capot team's card points under a bid of ``value``: 162 and the capot's 90 more,
    when the bid announced it (capot, générale) or ``unannounced_capot_bonus`` gives it
    anyway (§7.1)."""
    announced = value in (CAPOT_VALUE, GENERALE_VALUE)
    return DEAL_POINTS + (90 if announced or rules.unannounced_capot_bonus else 0)


def _check_points(rules: Coinche, points: list[int], capot: int | None, value: int,
                  strain: int) -> tuple[int, int]:
    """The card points with a dix de der of 10, as a deal's tally holds them."""
    if capot is None:
        reachable = _reachable(rules.points[strain])
        if sum(points) != DEAL_POINTS or not any(
                points[last] - LAST_TRICK in reachable and points[1 - last] in reachable
                for last in (0, 1)):
            raise ValueError(f"no set of tricks gives card_points {points[0]} and "
                             f"{points[1]}: they add up to 162 without a capot")
        return points[0], points[1]
    whole = capot_points(rules, value)
    if points[capot] != whole or points[1 - capot] != 0:
        raise ValueError(f"team {capot} took every trick, so card_points are {whole} "
                         f"for it and 0 for the other team")
    raw = [0, 0]
    raw[capot] = DEAL_POINTS
    return raw[0], raw[1]
