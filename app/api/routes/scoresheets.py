"""Score sheets (issue #35): a score keeper for matches played with real cards.  The
caller's own: created, read and written with its token, listed in its history; another
player's sheet reads as none.  Scoring is app/scoresheets.py's (the engine's); this
module reads bodies and maps refusals to HTTP (docs/protocol.md, "Score sheets")."""

from __future__ import annotations

import uuid
from typing import Annotated, Any

from fastapi import APIRouter, Body, Path, Query, status
from pydantic import BaseModel, ConfigDict, Field

from engine.variants import Variant

from ... import scoresheets
from ...db import scoresheets as store
from ...db.scoresheets import SheetRow
from ...errors import ErrorCode
from ...models import FlagValue, Name
from ...storage import StorageUnavailable
from ..deps import DatabaseDep, PlayerDep
from ..errors import ApiError, error_responses

router = APIRouter(prefix="/api", tags=["scoresheets"], responses=error_responses({
    401: "Missing or invalid token",
    404: "No such sheet of the caller's (`scoresheet_not_found`)",
    422: "A value the route does not take",
    503: "The database is unavailable (`storage_unavailable`)"}))
SheetId = Annotated[str, Path(max_length=32)]


class SheetCreate(BaseModel):
    model_config = ConfigDict(extra="forbid")
    variant: Variant
    options: dict[Annotated[str, Field(max_length=64)], FlagValue] = Field(
        default_factory=dict, max_length=32,
        description="House-rule flags of RULES.md §9 by name, as a table takes them.")
    names: list[Name] = Field(min_length=4, max_length=4, description=(
        "The four players by seat, in the order of play; seats 0 and 2 are team 0."))


class SheetDeal(BaseModel):
    result: dict[str, Any] = Field(description="As `python -m engine score` prints it.")
    summary: dict[str, Any] = Field(description="The summary as kept.")


class CoincheForm(BaseModel):
    bid_values: list[str] = Field(description="A bid's value before its strain: `80` to "
                                  "`160`, `capot`, `generale` when enabled (`100` + `S`).")
    multipliers: list[int] = Field(description="The multiplier of each `coinche` level "
                                   "(0: none, 1: coinched, 2: surcoinched).")
    capot_points: dict[str, int] = Field(description="The capot team's card points, by "
                                         "bid value (252, or 162 without the bonus).")


class Sheet(BaseModel):
    id: str
    variant: str
    options: dict[str, FlagValue]
    names: list[str]
    created_at: str
    target: int = Field(description="The score to pass; a Bulgarian valat may raise it.")
    deals: list[SheetDeal]
    totals: list[int]
    hanging: int = Field(description="Points hanging, carried into the next deal.")
    winner: int | None
    contracts: list[str] = Field(description="The contracts the variant has, for a form "
                                 "(Coinche: the strains its bids may name).")
    multipliers: list[int] = Field(description="The multipliers a deal may be played at.")
    declaration_contracts: list[str] = Field(
        description="The contracts in which declarations score (none: no declarations).")
    card_totals: dict[str, int] = Field(description="Each contract's card points in a "
                                        "deal, the last trick's 10 included (no capot).")
    most_belots: dict[str, int] = Field(description="The most belots a deal may hold in "
                                        "each contract.")
    coinche: CoincheForm | None = Field(description="Coinche's own entries; null in the "
                                        "other variants.")


class DealScore(BaseModel):
    """A new deal's score, as `python -m engine score` prints it, and the match after it."""

    model_config = ConfigDict(extra="allow")
    number: int = Field(description="The deal's place on the sheet, from 0.")
    totals: list[int]
    winner: int | None


class SheetPage(BaseModel):
    sheets: list[Sheet]


def sheet_view(sheet: SheetRow) -> Sheet:
    scored = scoresheets.score(sheet)
    form = scoresheets.form_of(scoresheets.options_of(sheet.variant, sheet.options))
    return Sheet(
        **form, id=sheet.id, variant=sheet.variant, options=sheet.options, names=sheet.names,
        created_at=sheet.created_at.isoformat(), target=scored.progress.target,
        deals=[SheetDeal(result=scored.report(i), summary=s)
               for i, s in enumerate(sheet.summaries)],
        totals=list(scored.progress.totals), hanging=scored.hanging,
        winner=scored.progress.winner)


@router.post("/scoresheets", status_code=status.HTTP_201_CREATED,
             responses=error_responses({422: "An unknown flag or value (`bad_options`)"}))
async def create_sheet(body: SheetCreate, player: PlayerDep, database: DatabaseDep) -> Sheet:
    """A new sheet for four names, a variant and its house rules."""
    try:
        scoresheets.options_of(body.variant, body.options)
    except ValueError as exc:
        raise ApiError(ErrorCode.BAD_OPTIONS, str(exc)) from None
    try:
        sheet = await store.create(database, uuid.uuid4().hex, player.id, body.variant,
                                   body.options, body.names)
    except StorageUnavailable:
        raise _unavailable() from None
    return sheet_view(sheet)


@router.get("/scoresheets")
async def list_sheets(player: PlayerDep, database: DatabaseDep,
                      limit: Annotated[int, Query(ge=1, le=50)] = 20) -> SheetPage:
    """The caller's sheets, newest first."""
    try:
        sheets = await store.list_of(database, player.id, limit)
    except StorageUnavailable:
        raise _unavailable() from None
    return SheetPage(sheets=[sheet_view(s) for s in sheets])


@router.get("/scoresheets/{sheet_id}")
async def get_sheet(sheet_id: SheetId, player: PlayerDep, database: DatabaseDep) -> Sheet:
    """The sheet, every deal scored, the totals and the winner."""
    try:
        sheet = await store.get(database, sheet_id, player.id)
    except StorageUnavailable:
        raise _unavailable() from None
    return sheet_view(_found(sheet, sheet_id))


@router.post("/scoresheets/{sheet_id}/deals", status_code=status.HTTP_201_CREATED,
             responses=error_responses({
                 409: "The sheet's match is over, or it holds 100 deals (`scoresheet_over`)",
                 422: "A summary no real deal gives (`impossible_deal`, the engine's reason)"}))
async def add_deal(sheet_id: SheetId, player: PlayerDep, database: DatabaseDep,
                   summary: Annotated[dict[str, Any], Body(
                       description="A summary as docs/RECORD.md defines it ('Scoring a "
                       "deal by hand'); `variant`, `options` and `carry_in` are the sheet's.",
                       max_length=16)]) -> DealScore:
    """Score the next deal from its summary; an impossible one is refused with the
    engine's reason, and nothing is kept."""
    try:
        sheet = await store.add_deal(database, sheet_id, player.id,
                                     lambda s: scoresheets.check_deal(s, summary))
    except ValueError as exc:
        raise ApiError(ErrorCode.IMPOSSIBLE_DEAL, str(exc)) from None
    except scoresheets.SheetOver as exc:
        raise ApiError(ErrorCode.SCORESHEET_OVER, str(exc)) from None
    except StorageUnavailable:
        raise _unavailable() from None
    scored = scoresheets.score(_found(sheet, sheet_id))
    return DealScore(number=len(scored.results) - 1, **scored.report(-1),
                     totals=list(scored.progress.totals), winner=scored.progress.winner)


@router.delete("/scoresheets/{sheet_id}/deals/last")
async def take_back(sheet_id: SheetId, player: PlayerDep, database: DatabaseDep) -> Sheet:
    """The sheet without its last deal, for an entry made by mistake (none: unchanged)."""
    try:
        sheet = await store.drop_last(database, sheet_id, player.id)
    except StorageUnavailable:
        raise _unavailable() from None
    return sheet_view(_found(sheet, sheet_id))


def _found(sheet: SheetRow | None, sheet_id: str) -> SheetRow:
    if sheet is None:
        raise ApiError(ErrorCode.SCORESHEET_NOT_FOUND, f"no sheet {sheet_id!r} of yours")
    return sheet


def _unavailable() -> ApiError:
    return ApiError(ErrorCode.STORAGE_UNAVAILABLE,
                    "score sheets are unavailable, try again later")
