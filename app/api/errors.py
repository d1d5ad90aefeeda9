"""One shape for every HTTP error, so that a client reads all of them the same way:
``{"detail": {"code", "message", "fields"?}}``, ``fields`` only when the request did not
validate (422).  The handlers give that body to each exception the routes, FastAPI and
Starlette raise; the routes declare it in OpenAPI with :func:`error_responses`."""

from __future__ import annotations

import re
from collections.abc import Mapping
from http import HTTPStatus
from typing import Any, get_args

from fastapi import FastAPI, HTTPException, Request, status
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from pydantic import BaseModel, Field
from pydantic_core.core_schema import ErrorType
from starlette.exceptions import HTTPException as StarletteHTTPException

from ..errors import ErrorCode
from ..tables import TableError

# pydantic's own error types; any other is a PydanticCustomError of ours (app/names.py).
PYDANTIC_TYPES = frozenset(get_args(ErrorType))


class FieldError(BaseModel):
    field: str = Field(description="The value's place, dotted: `body.name`, `query.limit`.")
    code: str = Field(description="Ours (`name_reserved`, ...) or pydantic's error type.")
    message: str


class ErrorDetail(BaseModel):
    code: str = Field(description="For programs: `no_table`, `name_reserved`, ...")
    message: str = Field(description="For people, in English.")
    fields: list[FieldError] | None = Field(
        default=None, description="Only for a request that did not validate (422): "
        "every value refused, in order.")


class ErrorBody(BaseModel):
    """The body of every error answer."""

    detail: ErrorDetail


class ApiError(HTTPException):
    """An HTTP error with our code, its status the code's, for routes and dependencies, its
    headers (Retry-After, WWW-Authenticate) kept.  Its detail is the shape's already, so
    that a router served without these handlers (tests of the history router alone)
    answers the shape too."""

    def __init__(self, code: ErrorCode, message: str,
                 headers: dict[str, str] | None = None) -> None:
        self.error = ErrorDetail(code=code, message=message)
        super().__init__(http_status(code), self.error.model_dump(exclude_none=True), headers)


def http_status(code: ErrorCode) -> int:
    """The status ``code`` answers with; a code said on sockets only has none, and
    would it ever reach HTTP it would be a bug of ours: 500."""
    return code.status or status.HTTP_500_INTERNAL_SERVER_ERROR


def error_responses(descriptions: dict[int, str]) -> dict[int | str, dict[str, Any]]:
    """A router's or route's ``responses``: each status answers an ErrorBody."""
    return {code: {"model": ErrorBody, "description": text}
            for code, text in descriptions.items()}


def error_response(status_code: int, detail: ErrorDetail,
                   headers: Mapping[str, str] | None = None) -> JSONResponse:
    body = ErrorBody(detail=detail).model_dump(exclude_none=True)
    return JSONResponse(body, status_code=status_code, headers=headers)


def error_answer(code: ErrorCode, message: str,
                 headers: Mapping[str, str] | None = None) -> JSONResponse:
    """The answer of ``code``, at its status, outside a route (middleware, handlers)."""
    return error_response(http_status(code), ErrorDetail(code=code, message=message), headers)


async def table_error(request: Request, exc: TableError) -> JSONResponse:
    headers = None if exc.retry_after is None else {"Retry-After": str(exc.retry_after)}
    return error_answer(exc.code, str(exc), headers)


def status_code_name(status_code: int) -> str:
    """The code of an error that has only its status: ``not_found`` for 404."""
    return re.sub(r"\W+", "_", HTTPStatus(status_code).phrase.lower())


async def http_exception(request: Request, exc: StarletteHTTPException) -> JSONResponse:
    """Ours carry a code; FastAPI's and Starlette's own (404, 405) only a status and its
    phrase."""
    detail = exc.error if isinstance(exc, ApiError) else ErrorDetail(
        code=status_code_name(exc.status_code), message=str(exc.detail))
    return error_response(exc.status_code, detail, exc.headers)


async def validation_error(request: Request, exc: RequestValidationError) -> JSONResponse:
    """422: the code is the first refusal's when it is ours, so that a refused name says
    why, else ``invalid_request``; ``fields`` lists every refusal."""
    fields = [FieldError(field=".".join(map(str, error["loc"])), code=error["type"],
                         message=error["msg"]) for error in exc.errors()]
    code = ErrorCode.INVALID_REQUEST if fields[0].code in PYDANTIC_TYPES else fields[0].code
    message = "; ".join(f"{field.field}: {field.message}" for field in fields)
    return error_response(status.HTTP_422_UNPROCESSABLE_CONTENT,
                          ErrorDetail(code=code, message=message, fields=fields))


async def internal_error(request: Request, exc: Exception) -> JSONResponse:
    """500, showing nothing of the exception: Starlette raises it again after this
    answer, so the server's log still has the traceback."""
    return error_answer(ErrorCode.INTERNAL, "internal error")


def add_error_handlers(app: FastAPI) -> None:
    """Every error answer of ``app`` in the one shape.  (``exception_handler`` types
    each handler by the exception it takes; ``add_exception_handler`` would not.)"""
    app.exception_handler(TableError)(table_error)
    app.exception_handler(StarletteHTTPException)(http_exception)
    app.exception_handler(RequestValidationError)(validation_error)
    app.exception_handler(Exception)(internal_error)
