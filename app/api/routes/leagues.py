"""Seasonal leagues (docs/tournaments.md, "Leagues"): the caller's league in a variant."""

from __future__ import annotations

from fastapi import APIRouter

from engine.variants import Variant

from ...competition.models import LeagueOut
from ...competition.seasons import league
from ..deps import DatabaseDep, PlayerDep
from ..errors import error_responses
from .tournaments import answering

router = APIRouter(prefix="/leagues", tags=["tournaments"], responses=error_responses({
    401: "Missing or invalid token", 422: "No such variant",
    503: "The database is unavailable"}))


@router.get("/{variant}")
async def my_league(variant: Variant, player: PlayerDep, db: DatabaseDep) -> LeagueOut:
    """This season of ``variant``'s league for the caller: the season's end, their
    division, their group ranked by league points, and its promotion and demotion zones."""
    with answering():
        return LeagueOut.model_validate(await league(db, variant.value, player.id))
