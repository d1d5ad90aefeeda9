"""Accounts and their sessions: sign up (a guest too, keeping its id), log in, log out,
who am I, a new password.  The work is app/accounts/service.py's; this module maps its
refusals to the one error shape."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Annotated

from fastapi import APIRouter, Depends, Response, status

from ...accounts.service import AccountError, Caller
from ...errors import ErrorCode
from ...models import AccountCreate, Credentials, GuestPublic, Me, PasswordChange
from ...shared import UNREACHABLE
from ...storage import StorageUnavailable
from ..deps import AccountsDep, AddressDep, Bearer, CallerDep, current_caller
from ..errors import ApiError, error_responses

router = APIRouter(tags=["accounts"])

_refusals = error_responses({
    401: "`bad_credentials`, or a missing or bad token",
    403: "A guest logging out or changing a password (`not_an_account`)",
    409: "`username_taken`, `already_an_account`",
    422: "`bad_username`, `reserved_username`, `weak_password`, or a malformed body",
    429: "`too_many_attempts` (logins, sign-ups), `too_many_requests` (any call: the REST "
         "rate), with `Retry-After` in seconds",
    503: "`storage_unavailable`, `cluster_unavailable` (Redis), with `Retry-After`",
})


@contextmanager
def refusals() -> Iterator[None]:
    """The service's refusals, and its stores' absences, in the one error shape."""
    try:
        yield
    except AccountError as exc:
        headers = None if exc.retry_after is None else {"Retry-After": str(exc.retry_after)}
        raise ApiError(exc.code, str(exc), headers) from None
    except StorageUnavailable:
        raise ApiError(ErrorCode.STORAGE_UNAVAILABLE,
                       "accounts cannot be reached now, try again later",
                       {"Retry-After": "1"}) from None
    except UNREACHABLE:
        raise ApiError(ErrorCode.CLUSTER_UNAVAILABLE,
                       "the cluster's Redis does not answer, try again later",
                       {"Retry-After": "1"}) from None


async def optional_caller(accounts: AccountsDep, credentials: Bearer) -> Caller | None:
    """The guest signing up, if a token came; a bad one is refused rather than ignored
    (the guest would lose its history to a fresh id without knowing)."""
    return None if credentials is None else await current_caller(accounts, credentials)


@router.post("/accounts", status_code=status.HTTP_201_CREATED, responses=_refusals)
async def create_account(body: AccountCreate, address: AddressDep, accounts: AccountsDep,
                         caller: Annotated[Caller | None, Depends(optional_caller)]
                         ) -> GuestPublic:
    """Sign up, logged in at once.  With a guest's token, that guest becomes the account:
    the same player id, so its history and seats stay its own; its guest tokens stop
    working (use the one answered)."""
    with refusals():
        account, token = await accounts.register(body.username, body.password, caller,
                                                 address)
    return GuestPublic(id=account.player.id, name=account.player.name, token=token)


@router.post("/sessions", status_code=status.HTTP_201_CREATED, responses=_refusals)
async def log_in(body: Credentials, address: AddressDep, accounts: AccountsDep) -> GuestPublic:
    """A new session's token.  A wrong username and a wrong password answer alike."""
    with refusals():
        account, token = await accounts.login(body.username, body.password,
                                              address)
    return GuestPublic(id=account.player.id, name=account.player.name, token=token)


@router.delete("/sessions", status_code=status.HTTP_204_NO_CONTENT, responses=_refusals)
async def log_out(caller: CallerDep, accounts: AccountsDep) -> Response:
    """End the caller's session: its token stops working at once, its sockets close
    with 4002 (`SESSION_ENDED`)."""
    with refusals():
        await accounts.logout(caller)
    return Response(status_code=status.HTTP_204_NO_CONTENT)


@router.get("/me", responses=_refusals)
async def me(caller: CallerDep) -> Me:
    """Who the token is."""
    return Me(id=caller.player.id, name=caller.player.name, kind=caller.kind,
              username=caller.username)


@router.put("/me/password", status_code=status.HTTP_204_NO_CONTENT, responses=_refusals)
async def change_password(body: PasswordChange, caller: CallerDep, address: AddressDep,
                          accounts: AccountsDep) -> Response:
    """A new password; every other session of the account ends, this one goes on.  A
    wrong `old` answers `bad_credentials` and counts as a failed login."""
    with refusals():
        await accounts.change_password(caller, body.old, body.new, address)
    return Response(status_code=status.HTTP_204_NO_CONTENT)
