"""A score keeper for matches played with real cards (issue #35): a sheet's deals are
summaries of RECORD.md ("Scoring a deal by hand"), scored by the engine exactly as
``python -m engine score`` scores them, deal after deal, the hanging pool carried in.

Only the summaries are kept (app/db/scoresheets.py); the scores follow from them here,
so a sheet always reads as today's engine scores it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from engine.actions import action_name, contract_of, point_value
from engine.options import Options
from engine.scoring import DealResult, MatchProgress, after_deal
from engine.summary import score_summary
from engine.variants.coinche import Coinche
from engine.variants.coinche_summary import DEAL_POINTS, capot_points

from .db.scoresheets import SheetRow

MAX_DEALS = 100  # far past any real match: a sheet is not a store for anything else
SHEET_KEYS = ("variant", "options")  # the sheet's own, in a summary only as the sheet has them


class SheetOver(Exception):
    """The sheet's match has a winner, or the sheet holds :data:`MAX_DEALS` deals."""


@dataclass(frozen=True, slots=True)
class Scored:
    """A sheet's deals scored in order, and the match after them."""

    results: list[DealResult]
    progress: MatchProgress
    hanging: int
    options: Options

    def report(self, index: int) -> dict[str, object]:
        """A deal's result as ``python -m engine score`` prints it (the variant's report)."""
        return self.options.deal_report(self.results[index])


def options_of(variant: str, flags: dict[str, Any]) -> Options:
    """The sheet's rules; ValueError names a bad variant or flag."""
    return Options.for_room(variant, **flags)


def form_of(options: Options) -> dict[str, Any]:
    """What a deal's entry form offers and checks, as the engine has it, so that a client
    holds no copy of it: the contracts (a Coinche bid's strains), each one's card points
    and most belots, those where declarations score, the multipliers; in Coinche the bid
    values (``100``, ``capot``...), the multiplier of each coinche level and, per bid
    value, the capot team's card points."""
    coinche = options if isinstance(options, Coinche) else None
    contracts = coinche.strains() if coinche else list(options.contracts)
    names = {k: options.strain_names[k] for k in contracts}
    form: dict[str, Any] = {
        "contracts": list(names.values()),
        "multipliers": list(options.multipliers),
        "declaration_contracts": [n for k, n in names.items()
                                  if options.declarations_in(k) is not None],
        "card_totals": {n: DEAL_POINTS if coinche else options.card_total(k)
                        for k, n in names.items()},
        "most_belots": {n: options.most_belots(k) for k, n in names.items()},
        "coinche": None,
    }
    if coinche is not None:
        strain = coinche.strain_names[contracts[0]]
        bids = {action_name(b).removesuffix(strain): b for b in coinche.bids
                if contract_of(b) == contracts[0]}
        form["coinche"] = {
            "bid_values": list(bids),
            "multipliers": [1, 2, coinche.surcoinche_multiplier],
            "capot_points": {name: capot_points(coinche, point_value(b))
                             for name, b in bids.items()},
        }
    return form


def score(sheet: SheetRow) -> Scored:
    """Every deal of the sheet through the engine's summary scoring and its match end."""
    options = options_of(sheet.variant, sheet.options)
    progress = MatchProgress((0, 0), options.target_score, None)
    results: list[DealResult] = []
    hanging = 0
    for summary in sheet.summaries:
        result = score_summary(_complete(sheet, summary, hanging))
        results.append(result)
        hanging = result.hanging
        progress = after_deal(progress, result, options)
    return Scored(results, progress, hanging, options)


def check_deal(sheet: SheetRow, summary: Any) -> dict[str, Any]:
    """The summary to keep for the sheet's next deal: ValueError with the engine's reason
    if it is impossible, SheetOver if the sheet takes no more deals.  ``variant`` and
    ``options`` may be given only as the sheet has them, ``carry_in`` only as the
    sheet's hanging pool: the sheet sets both."""
    if not isinstance(summary, dict):
        raise ValueError("a summary is a JSON object")
    before = score(sheet)
    if before.progress.winner is not None:
        raise SheetOver("the match on this sheet is over")
    if len(sheet.summaries) >= MAX_DEALS:
        raise SheetOver(f"a sheet holds at most {MAX_DEALS} deals")
    own = {"variant": sheet.variant, "options": sheet.options}
    for key in SHEET_KEYS:
        if key in summary and summary[key] != own[key]:
            raise ValueError(f"{key} is the sheet's: {own[key]!r}")
    if "carry_in" in summary and summary["carry_in"] != before.hanging:
        raise ValueError(f"carry_in is the sheet's hanging pool: {before.hanging}")
    kept = {k: v for k, v in summary.items() if k not in (*SHEET_KEYS, "carry_in")}
    score_summary(_complete(sheet, kept, before.hanging))  # refuses an impossible one
    return kept


def _complete(sheet: SheetRow, summary: dict[str, Any], hanging: int) -> dict[str, Any]:
    """The summary as the engine reads it: the sheet's rules, and the pool hanging when
    there is one (Coinche has none, and its summaries take no ``carry_in``)."""
    pool = {"carry_in": hanging} if hanging else {}
    return {**summary, "variant": sheet.variant, "options": sheet.options, **pool}
