"""Scoring a deal played with physical cards from its summary (``python -m engine score``)."""

from __future__ import annotations

from collections import Counter
from typing import Any

from .cards import POINTS, RANKS
from .declarations import CARRE_VALUE
from .options import Options
from .record import read_options
from .scoring import LAST_TRICK, DealResult, Tally, card_total, score_deal

_KEYS = {"variant", "options", "contract", "bidder_team", "multiplier", "card_points",
         "declarations", "belot", "valat", "carry_in"}
_RUN_VALUES = {"tierce": 20, "quarte": 50, "quint": 100}
_VALUES = _RUN_VALUES | {f"carre-{RANKS[r]}": v for r, v in CARRE_VALUE.items()}


def score_summary(doc: Any) -> DealResult:
    """The per-deal result of a summary; ValueError says why a summary is impossible."""
    if not isinstance(doc, dict):
        raise ValueError("a summary is a JSON object")
    return read_options(doc).read_summary(doc)


def summary_report(doc: Any) -> dict[str, object]:
    """What ``python -m engine score`` prints: the per-deal object of a replay."""
    result = score_summary(doc)
    assert isinstance(doc, dict)
    return read_options(doc).deal_report(result)


def trick_summary(options: Options, doc: dict[str, Any]) -> DealResult:
    """A Bulgarian or classic summary's result (RECORD.md, "Scoring a deal by hand")."""
    if unknown := set(doc) - _KEYS:
        raise ValueError(f"unknown key {sorted(unknown)[0]!r}")
    name = doc.get("contract")
    allowed = [options.strain_names[k] for k in options.contracts]
    if name not in allowed:
        raise ValueError(f"contract must be one of {', '.join(allowed)}, not {name!r}")
    contract = options.strain_names.index(name)
    bidder = _choice(doc, "bidder_team", (0, 1))
    multiplier = _choice(doc, "multiplier", options.multipliers, default=1)
    carry_in = doc.get("carry_in", 0)
    if type(carry_in) is not int or carry_in < 0:
        raise ValueError("carry_in must be a whole number of at least 0")
    points = pair(doc, "card_points")
    if sum(points) != card_total(contract):
        raise ValueError(f"card_points must add up to {card_total(contract)} in {name}")
    reachable = _REACHABLE[contract]
    if not any(points[last] - LAST_TRICK in reachable and points[1 - last] in reachable
               for last in (0, 1)):
        raise ValueError(f"no set of tricks gives card_points {points[0]} and {points[1]}")
    valat = doc.get("valat")
    if valat is not None:
        _choice(doc, "valat", (0, 1))
        if points[valat] != card_total(contract):
            raise ValueError(f"team {valat} took every trick, so it has all "
                             f"{card_total(contract)} card points")
    declarations = declaration_points(doc.get("declarations", [[], []]), contract, options)
    belots = pair(doc, "belot", default=[0, 0])
    most = options.most_belots(contract)
    if sum(belots) > most:
        raise ValueError(f"at most {most} belot{'s' * (most != 1)} in {name}")
    tally = Tally(contract, bidder, multiplier, (points[0], points[1]),
                  declarations, (belots[0], belots[1]), valat)
    result = score_deal(tally, carry_in, options)
    return DealResult(**{**{f: getattr(result, f) for f in result.__slots__}, "bidder": None})


def _choice(
    doc: dict[str, Any], key: str, allowed: tuple[int, ...], default: int | None = None
) -> int:
    value = doc.get(key, default)
    if type(value) is not int or value not in allowed:
        raise ValueError(f"{key} must be one of {', '.join(map(str, allowed))}, not {value!r}")
    return value


def pair(doc: dict[str, Any], key: str, default: list[int] | None = None) -> list[int]:
    value = doc.get(key, default)
    if (not isinstance(value, list) or len(value) != 2
            or any(type(v) is not int or v < 0 for v in value)):
        raise ValueError(f"{key} must be two whole numbers of at least 0")
    return value


_MIN_CARDS = {"tierce": 3, "quarte": 4, "quint": 5}


def _check_fits(team: list[str]) -> None:
    """A team holds 16 cards in two hands: at most one quint and two runs a hand."""
    runs = [n for n in team if n in _MIN_CARDS]
    cards = sum(_MIN_CARDS.get(n, 4) for n in team)
    if team.count("quint") > 2 or len(runs) > 4 or cards > 16:
        raise ValueError(f"two hands of eight cards cannot hold {', '.join(team)}")


def _reachable(contract: int) -> frozenset[int]:
    """Every card-point total some set of tricks can hold under a contract."""
    sums = 1
    for card in range(32):
        sums |= sums << POINTS[contract][card]
    return frozenset(v for v in range(sums.bit_length()) if sums >> v & 1)


_REACHABLE = tuple(_reachable(k) for k in range(6))


def declaration_points(value: Any, contract: int, options: Options) -> tuple[int, int]:
    if (not isinstance(value, list) or len(value) != 2
            or not all(isinstance(team, list) for team in value)):
        raise ValueError("declarations must be two lists of combination names")
    names = [n for team in value for n in team]
    rules = options.declarations_in(contract)
    if rules is None:
        if names:
            where = (options.strain_names[contract] if options.declaration_contracts
                     else options.variant)
            raise ValueError(f"no declarations score in {where}")
        return 0, 0
    for n in names:
        if not isinstance(n, str) or n not in _VALUES:
            raise ValueError(f"unknown combination {n!r}")
    carres = Counter(n for n in names if n.startswith("carre"))
    if any(count > 1 for count in carres.values()):
        raise ValueError("each carré exists once in the deck")
    for team in value:
        _check_fits(team)
    if rules.declaration_resolution == "per_category":
        for category in (_RUN_VALUES.keys(), carres.keys()):
            if all(any(n in category for n in team) for team in value):
                raise ValueError("only one team scores each kind of declaration")
    elif all(value):
        raise ValueError("only one team scores declarations")
    teams = [sum(_VALUES[n] for n in team) for team in value]
    return teams[0], teams[1]
