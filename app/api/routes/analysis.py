"""Match analysis (issue #17): ask for a finished match's review, then read its status,
progress and, once done, the review (docs/protocol.md).  The jobs are app/analysis's;
this module maps their answers to HTTP.  Visibility is the match's: anyone with its id."""

from __future__ import annotations

from typing import Any, Literal

from fastapi import APIRouter, status
from pydantic import BaseModel, Field

from ...analysis import (
    MatchNotFound,
    MatchNotOver,
    QueueFull,
    SlotsFull,
    TooManyForYou,
)
from ...competition.store import check_decks
from ...db.analyses import AnalysisRow
from ...errors import ErrorCode
from ...shared import UNREACHABLE
from ...storage import StorageUnavailable
from ..deps import AddressDep, AnalysesDep, DatabaseDep, ViewerDep
from ..errors import ApiError, error_responses


class AnalysisStatus(BaseModel):
    status: Literal["queued", "running", "done", "failed"]
    progress: float = Field(ge=0, le=1, description="The share of decisions judged.")
    result: dict[str, Any] | None = Field(
        default=None, description="When done: ai.review's review_json (docs/analysis.md).")
    error: str | None = Field(default=None, description="When failed: why.")

    @classmethod
    def of(cls, row: AnalysisRow, *, full: bool) -> AnalysisStatus:
        return cls.model_validate({"status": row.status, "progress": row.progress,
                                   "result": row.result if full else None, "error": row.error})


_errors = error_responses({
    404: "No such match (`match_not_found`), or no analysis asked for (`no_analysis`)",
    409: "The match is not over (`match_not_over`)",
    422: "A malformed match id",
    429: "Too many analyses waiting (`too_many_analyses`), or waiting for this player or "
         "address (`analysis_slots_full_for_you`), or asked for from this address "
         "(`too_many_analyses_for_you`), with `Retry-After`",
    503: "The database (`storage_unavailable`) or a cluster's Redis "
         "(`cluster_unavailable`) is unavailable",
})
router = APIRouter(prefix="/api", tags=["analysis"], responses=_errors)
RETRY_AFTER = "60"  # seconds: about what a review takes


@router.post("/matches/{match_id}/analysis", status_code=status.HTTP_202_ACCEPTED,
             response_model_exclude_none=True)
async def ask_analysis(analyses: AnalysesDep, match_id: str, address: AddressDep,
                       viewer: ViewerDep, db: DatabaseDep) -> AnalysisStatus:
    """Ask for the match's review; asking again answers the same job's status.  With a
    token, its player's share of the queue counts too (docs/analysis.md).  A duplicate
    round's table waits for the round's end (its decks are the other tables' deals)."""
    try:
        await check_decks(db, match_id)
        row = await analyses.request(match_id, address, viewer.id if viewer else None)
    except MatchNotFound:
        raise ApiError(ErrorCode.MATCH_NOT_FOUND, f"no match {match_id!r}") from None
    except MatchNotOver:
        raise ApiError(ErrorCode.MATCH_NOT_OVER,
                       "a match is analysed once it is over") from None
    except QueueFull:
        raise ApiError(ErrorCode.TOO_MANY_ANALYSES, "too many analyses are waiting; try "
                       "again in a minute", headers={"Retry-After": RETRY_AFTER}) from None
    except SlotsFull:
        raise ApiError(ErrorCode.ANALYSIS_SLOTS_FULL_FOR_YOU, "your analyses waiting fill "
                       "your share of the queue; try again once one is done",
                       headers={"Retry-After": RETRY_AFTER}) from None
    except TooManyForYou as refused:
        raise ApiError(ErrorCode.TOO_MANY_ANALYSES_FOR_YOU, "you asked for many analyses "
                       "lately; try again later",
                       headers={"Retry-After": str(refused.retry_after)}) from None
    except StorageUnavailable:
        raise _unavailable() from None
    except UNREACHABLE:
        raise ApiError(ErrorCode.CLUSTER_UNAVAILABLE, "the cluster's Redis does not "
                       "answer, try again later", headers={"Retry-After": "1"}) from None
    return AnalysisStatus.of(row, full=False)


@router.get("/matches/{match_id}/analysis", response_model_exclude_none=True)
async def get_analysis(analyses: AnalysesDep, match_id: str) -> AnalysisStatus:
    """The job's status and progress; with the review once done."""
    try:
        row = await analyses.get(match_id)
    except StorageUnavailable:
        raise _unavailable() from None
    if row is None:
        raise ApiError(ErrorCode.NO_ANALYSIS, f"no analysis of {match_id!r} was asked for")
    return AnalysisStatus.of(row, full=True)


def _unavailable() -> ApiError:
    return ApiError(ErrorCode.STORAGE_UNAVAILABLE,
                    "the analyses are unavailable, try again later")
