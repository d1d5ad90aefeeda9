"""REST request and response models, apart from the table state they describe."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field

from ai import Level
from engine.variants import DEFAULT_VARIANT, Variant

from . import ratings
from .accounts.passwords import check_password
from .accounts.usernames import check_username
from .names import MAX_NAME, clean_name, clean_player_name
from .vocabulary import BotPace, SeatKind, TableStatus

# Names are normalized and checked by app/names.py, each refusal with its own 422 code.
Name = Annotated[str, Field(max_length=MAX_NAME), AfterValidator(clean_name)]
PlayerName = Annotated[str, Field(max_length=MAX_NAME), AfterValidator(clean_player_name)]
FlagValue = bool | int | str



class GuestCreate(BaseModel):
    model_config = ConfigDict(extra="forbid")
    name: PlayerName


class GuestPublic(BaseModel):
    id: str
    name: str
    token: str = Field(description="Send as `Authorization: Bearer <token>` and in `hello`.")


class AccountCreate(BaseModel):
    model_config = ConfigDict(extra="forbid")
    username: Annotated[str, AfterValidator(check_username)]
    password: Annotated[str, AfterValidator(check_password)]


class Credentials(BaseModel):
    """A login: bounded, not checked against the sign-up rules, so that any wrong pair
    gets the one answer ``bad_credentials``."""

    model_config = ConfigDict(extra="forbid")
    username: Annotated[str, Field(max_length=64)]
    password: Annotated[str, Field(max_length=1024)]


class PasswordChange(BaseModel):
    model_config = ConfigDict(extra="forbid")
    old: Annotated[str, Field(max_length=1024)]
    new: Annotated[str, AfterValidator(check_password)]


class Me(BaseModel):
    id: str
    name: str
    kind: Literal["guest", "account"]
    username: str | None = Field(description="The account's; null for a guest.")


class TableCreate(BaseModel):
    model_config = ConfigDict(extra="forbid")
    name: Name
    variant: Variant = DEFAULT_VARIANT
    options: dict[Annotated[str, Field(max_length=64)], FlagValue] = Field(
        default_factory=dict,
        max_length=32,
        description="House-rule flags of RULES.md §9 by name; missing ones take the "
        "variant's defaults.",
    )
    turn_seconds: float | None = Field(
        default=None, ge=1, le=600, description="Seconds per human turn; default from settings."
    )
    private: bool = Field(default=False, description="Private tables are not listed.")
    timeout_forfeits: bool = Field(
        default=False, description="A missed turn loses the match instead of a bot playing it."
    )
    spectator_chat: bool = Field(
        default=True, description="Spectators read the players' chat (they never write)."
    )
    rated: bool = Field(default=False, description="The result changes the players' "
                        "ratings: accounts only (bots may fill seats), never private.")
    bot_pace: BotPace = Field(default=BotPace.NORMAL, description="How fast the bots play: "
                              "`slow` waits twice `BOT_DELAY` before a bot's move, `fast` about a "
                              "third of it.")


class BotCreate(BaseModel):
    model_config = ConfigDict(extra="forbid")
    level: Level = Level.NORMAL


class RatingView(BaseModel):
    """A rating as every route and event shows it (docs/ratings.md)."""

    value: int = Field(description="The conservative value leaderboards rank by: the "
                       "estimate less its margin (3 sigmas).")
    estimate: int = Field(description="The skill estimate in display points: the rating "
                          "shown, with a provisional mark while `provisional`.")
    margin: int = Field(description="The estimate's uncertainty: 3 sigmas in display points.")
    mu: float
    sigma: float
    provisional: bool = Field(description="Too few rated matches (or too uncertain) to rank.")
    matches: int | None = Field(description="Rated matches in the variant; null for a bot.")
    bot: bool = False

    @classmethod
    def of(cls, rating: ratings.Rating, matches: int | None) -> RatingView:
        """``matches`` None for a bot's fixed rating (never provisional)."""
        return cls(value=ratings.display(rating), estimate=ratings.estimate(rating),
                   margin=ratings.margin(rating), mu=round(rating.mu, 3),
                   sigma=round(rating.sigma, 3),
                   provisional=matches is not None and ratings.provisional(rating, matches),
                   matches=matches, bot=rating.bot)


class RatingChangeOut(BaseModel):
    """One seat's rating before and after a rated match (event ``ratings``)."""

    seat: int
    player: str
    before: RatingView
    after: RatingView


class SeatPublic(BaseModel):
    kind: SeatKind
    name: str | None = None
    player: str | None = Field(
        default=None, exclude_if=lambda value: value is None,
        description="A human seat's player id (its profile, the player menu); absent "
        "for bots and empty seats.")
    level: Level | None = None
    connected: bool = False
    autoplay: bool = Field(default=False, description="A bot plays for the absent human.")
    account: bool = Field(default=False, description="The seat's player has an account "
                          "(a guest's name may look like an account's).")
    rating: RatingView | None = Field(
        default=None, description="The seat's rating in the table's variant: an account's "
        "or a bot's; null for guests and empty seats.")


class Forfeit(BaseModel):
    seat: int
    winner: int


class TablePublic(BaseModel):
    id: str
    name: str
    variant: str
    options: dict[str, FlagValue] = Field(description="Every flag that applies, with its value.")
    turn_seconds: float
    private: bool
    timeout_forfeits: bool
    spectator_chat: bool
    bot_pace: BotPace = Field(description="How fast the bots play: slow, normal or fast.")
    status: TableStatus
    version: int
    owner: str = Field(description="The creator's player id: only they add bots and start.")
    seats: list[SeatPublic]
    totals: tuple[int, int] | None = None
    winner: int | None = Field(default=None, description="Winning team, once over.")
    forfeit: Forfeit | None = None
    rematch: str | None = Field(
        default=None, description="Once over: the id of the new table its players went to.")
    node: str = Field(description="The server node that holds the table (docs/cluster.md).")
    rated: bool = False
    rating_changes: list[RatingChangeOut] | None = Field(
        default=None, description="Once a rated match is over: each account's rating "
        "before and after (the ``ratings`` event's ``changes``).")


class TablePage(BaseModel):
    """One page of ``GET /api/tables``."""

    tables: list[TablePublic]
    total: int = Field(description="Public tables waiting for players, on every page.")
    next_cursor: int | None = Field(
        description="Pass as `cursor` for the next page; null on the last page.")
