"""The server's error codes, each defined once with the HTTP status it answers with and what
it means.  The table, account and analysis layers raise a code; the REST edge
(app/api/errors.py) maps it to its status, and a socket sends the code alone.
``GET /api/protocol`` serves them as ``errors``, docs/protocol.md lists them (section 7,
written by ``python -m tools.error_codes``), and the client has a text for each in every
language (``error.<code>``); tests/test_app_error_codes.py holds the four together.

``status`` is None for a code said on a socket only (a message refused, a handshake, a
chat message, the engine's refusals of an action: ``engine/errors.py``)."""

from __future__ import annotations

from enum import StrEnum


class ErrorCode(StrEnum):
    """A stable, machine-readable reason; a string on the wire (``detail.code``, a socket
    ``error``'s ``code``), so clients read it unchanged."""

    status: int | None
    meaning: str

    def __new__(cls, code: str, status: int | None, meaning: str) -> ErrorCode:
        member = str.__new__(cls, code)
        member._value_ = code
        member.status = status
        member.meaning = meaning
        return member

    # ------------------------------------------------------------- any request
    INVALID_REQUEST = "invalid_request", 422, (
        "a value of the request did not validate and none of ours says why: `fields` lists "
        "every refused value (section 1, **Errors**)")
    NOT_FOUND = "not_found", 404, "no such route (the HTTP layer's own)"
    METHOD_NOT_ALLOWED = "method_not_allowed", 405, (
        "the route does not take this method (with `Allow`)")
    TOO_LARGE = "too_large", 413, (
        "in a cluster, a table's call passed on to the table's node has a body of more "
        "than 64 KiB")
    TOO_MANY_REQUESTS = "too_many_requests", 429, (
        "the bearer token's or the client address's REST rate is spent (section 1, "
        "**Limits**), or the player's invitations and partner prompts (section 10); with "
        "`Retry-After`: seconds until one more call is let through")
    INTERNAL = "internal", 500, (
        "an unexpected error, nothing of it shown; on a socket, the answer to the action "
        "that met it")
    # ------------------------------------------------------------- tokens and accounts
    MISSING_TOKEN = "missing_token", 401, (
        "no bearer token where one is needed (with `WWW-Authenticate: Bearer`)")
    BAD_TOKEN = "bad_token", 401, (
        "the token is not, or no longer, anyone's (with `WWW-Authenticate: Bearer`); in a "
        "socket's `hello`, followed by close code 4003")
    BAD_CREDENTIALS = "bad_credentials", 401, (
        "a wrong username or a wrong password (they answer alike), or a wrong `old` "
        "password")
    BAD_USERNAME = "bad_username", 422, "a username is not 3 to 24 letters, digits, `_` or `-`"
    RESERVED_USERNAME = "reserved_username", 422, "that username is reserved"
    WEAK_PASSWORD = "weak_password", 422, (
        "a password is not 8 to 256 characters long, or is the username")
    USERNAME_TAKEN = "username_taken", 409, "that username is taken"
    ALREADY_AN_ACCOUNT = "already_an_account", 409, "signing up with an account's token"
    NOT_AN_ACCOUNT = "not_an_account", 403, (
        "a guest's token where only an account may act: logging out, changing the "
        "password, friends, blocks, reports (section 10)")
    TOO_MANY_ATTEMPTS = "too_many_attempts", 429, (
        "too many failed logins, or sign-ups, from this address or on this username "
        "(docs/accounts.md, \"Abuse limits\"); with `Retry-After`")
    ACCOUNT_REQUIRED = "account_required", 403, (
        "a guest creating, joining, quickplaying or queueing for a rated table")
    # ------------------------------------------------------------- the community (section 10)
    YOURSELF = "yourself", 422, "befriending, blocking, reporting, inviting or partnering oneself"
    BLOCKED = "player_blocked", 403, (
        "one of the two players blocks the other: no friend request, invitation nor queue "
        "partner between them")
    NOT_SEATED_HERE = "not_seated_here", 403, (
        "an invitation from a player who has no seat at the table")
    REPUTATION_TOO_LOW = "reputation_too_low", 403, (
        "the rated queue refuses a player whose reputation is below 50 (docs/community.md)")
    # ------------------------------------------------------------- names (section 1, Names)
    NAME_CONTROL = "name_control", 422, (
        "a name holds control characters, line breaks or tag characters")
    NAME_BIDI = "name_bidi", 422, "a name holds bidirectional text controls"
    NAME_TOO_MANY_MARKS = "name_too_many_marks", 422, (
        "a name has more than 4 combining marks on one character")
    NAME_INVISIBLE = "name_invisible", 422, "a name shows nothing once trimmed"
    NAME_TOO_LONG = "name_too_long", 422, "a name is longer than 32 characters"
    NAME_RESERVED = "name_reserved", 422, "a guest's name that passes for a bot's"
    # ------------------------------------------------------------- tables and seats
    NO_TABLE = "no_table", 404, (
        "unknown or closed table; in a socket's handshake, followed by close code 4004")
    BAD_OPTIONS = "bad_options", 422, "an unknown house-rule flag, or a value it does not take"
    RATED_PRIVATE = "rated_private", 422, "a rated table cannot be private"
    RATED_TURN_TOO_SHORT = "rated_turn_too_short", 422, (
        "a rated table's `turn_seconds` is below `RATED_MIN_TURN_SECONDS`")
    TOO_MANY_TABLES = "too_many_tables", 429, "the whole server holds as many tables as it may"
    TOO_MANY_TABLES_FOR_YOU = "too_many_tables_for_you", 429, (
        "the caller holds as many open tables as a player may (section 1, **Limits**); "
        "`Retry-After` when one of them is waiting")
    TOO_MANY_TABLES_FOR_ADDRESS = "too_many_tables_for_address", 429, (
        "the client address holds as many open tables as it may; `Retry-After` when one of "
        "them is waiting")
    NO_SEAT = "no_seat", 404, "seats are 0 to 3"
    SEAT_TAKEN = "seat_taken", 409, "the seat has a player or a bot"
    ALREADY_SEATED = "already_seated", 409, "the caller already has a seat at this table"
    NOT_YOUR_SEAT = "not_your_seat", 403, "only the seat's own player may leave it"
    NOT_A_BOT = "not_a_bot", 409, "the seat holds no bot to take out"
    NOT_ALLOWED = "not_allowed", 403, (
        "bots and the start are the table's creator's, a rematch its players'")
    NOT_WAITING = "not_waiting", 409, "the match has already started"
    SEATS_EMPTY = "seats_empty", 409, "every seat needs a player or a bot to start"
    NO_HUMANS = "no_humans", 409, "a match needs at least one human"
    NOT_STARTED = "not_started", 409, "no match in progress yet"
    NOT_OVER = "not_over", 409, "a rematch, or the table's record, before the match is over"
    GAME_OVER = "game_over", 409, "the match is over"
    NOT_QUEUED = "not_queued", 404, (
        "`GET /api/queue` for a player not in the queue (never asked, left, stopped asking, "
        "or seated long ago)")
    # ------------------------------------------------------------- matches, players, analyses
    MATCH_NOT_FOUND = "match_not_found", 404, "no such match"
    PLAYER_NOT_FOUND = "player_not_found", 404, "no such player"
    BAD_FILTER = "bad_filter", 422, (
        "a history filter's time has no timezone, or `since` is after `until`")
    BAD_CURSOR = "bad_cursor", 422, "a cursor this server did not give"
    MATCH_NOT_OVER = "match_not_over", 409, "a match is analysed once it is over"
    NO_ANALYSIS = "no_analysis", 404, "no analysis of this match was asked for"
    TOO_MANY_ANALYSES = "too_many_analyses", 429, (
        "the analysis queue is full (`ANALYSIS_QUEUE_MAX`); with `Retry-After`")
    ANALYSIS_SLOTS_FULL_FOR_YOU = "analysis_slots_full_for_you", 429, (
        "the caller's player or address holds its share of the analysis queue; with "
        "`Retry-After`")
    TOO_MANY_ANALYSES_FOR_YOU = "too_many_analyses_for_you", 429, (
        "this address asked for `ANALYSES_PER_ADDRESS` new analyses within "
        "`ANALYSIS_WINDOW`; with `Retry-After`")
    # ------------------------------------------------------------- score sheets
    SCORESHEET_NOT_FOUND = "scoresheet_not_found", 404, "no such score sheet of the caller's"
    IMPOSSIBLE_DEAL = "impossible_deal", 422, (
        "a score sheet's deal summary that no real deal gives, or malformed; the message is "
        "the engine's reason (`python -m engine score`)")
    SCORESHEET_OVER = "scoresheet_over", 409, (
        "the score sheet's match has a winner, or the sheet holds 100 deals")
    # ------------------------------------------------------------- problems
    PROBLEM_NOT_FOUND = "problem_not_found", 404, (
        "no such problem, or another player's own (docs/protocol.md, \"Problems\")")
    NOT_AN_OPTION = "not_an_option", 422, (
        "an attempt's action is not one of the problem's choices (its `options`)")
    DECKS_HIDDEN = "decks_hidden", 409, (
        "the record, replay or review of a duplicate round's table before that round is "
        "over: its decks are the other tables' next deals")
    # ------------------------------------------------------------- tournaments
    NO_TOURNAMENT = "no_tournament", 404, "no such tournament"
    NOT_DIRECTOR = "not_director", 403, (
        "a bot entry, or the start, asked for by someone other than the tournament's director")
    TOURNAMENT_STARTED = "tournament_started", 409, (
        "entries close, and the start is done, once the tournament has started")
    TOURNAMENT_OVER = "tournament_over", 409, "the tournament is over"
    TOURNAMENT_FULL = "tournament_full", 409, "the tournament has its `max_entries` entries"
    ALREADY_ENTERED = "already_entered", 409, (
        "the caller, or the partner named, has an entry in this tournament already")
    NOT_ENTERED = "not_entered", 404, "the caller has no entry in this tournament"
    TOO_FEW_ENTRIES = "too_few_entries", 409, "a tournament starts with at least one entry"
    BAD_ENTRY = "bad_entry", 422, (
        "an entry with both `partner` and `bot`, a partner for rotating partners, oneself as "
        "a partner")
    BAD_START = "bad_start", 422, "`starts_at` has no timezone, or is in the past"
    DUPLICATE_NEEDS_SHUFFLE = "duplicate_needs_shuffle", 422, (
        "a duplicate tournament with `reshuffle_each_deal` off: a deal cut from the last one "
        "would depend on how the table played it")
    # ------------------------------------------------------------- the server's own state
    STORAGE_UNAVAILABLE = "storage_unavailable", 503, (
        "the database cannot be reached now; for an action, the match log cannot be "
        "written and the table goes on by itself once it can (section 5)")
    CLUSTER_UNAVAILABLE = "cluster_unavailable", 503, (
        "in a cluster only (docs/cluster.md): the table is moving between nodes, or Redis "
        "does not answer; with `Retry-After: 1`. The socket's counterpart is close code "
        "1013")
    SHUTTING_DOWN = "shutting_down", 503, (
        "the server is stopping: actions already queued are logged and answered, new ones "
        "refused, and the socket is closed with 1012")
    DATABASE_UNAVAILABLE = "database_unavailable", 503, (
        "`/readyz` only: the database does not answer")
    REDIS_UNAVAILABLE = "redis_unavailable", 503, (
        "`/readyz` only: in a cluster, Redis did not answer this node's last round")
    # ------------------------------------------------------------- socket messages
    BAD_JSON = "bad_json", None, "the frame is not JSON"
    BAD_MESSAGE = "bad_message", None, (
        "not an object, missing, extra or mistyped fields, or a second `hello`")
    UNKNOWN_TYPE = "unknown_type", None, "`type` is not one of the client messages"
    HELLO_EXPECTED = "hello_expected", None, (
        "the first message is not a `hello`; followed by close code 4400")
    HELLO_TIMEOUT = "hello_timeout", None, "no `hello` in time; followed by close code 4000"
    PROTOCOL_VERSION = "protocol_version", None, (
        "`hello` carries a protocol this server does not speak; followed by close code 4400")
    TOO_MANY_SOCKETS = "too_many_sockets", None, (
        "the client address or the player has as many sockets open as it may; followed by "
        "close code 4029")
    TOO_MANY_SPECTATORS = "too_many_spectators", None, (
        "the table has as many spectators as it takes; followed by close code 4009")
    SEATED_ONLY = "seated_only", None, (
        "a spectator at a duplicate tournament round's table, which only its players watch; "
        "followed by close code 4009")
    NOT_SEATED = "not_seated", None, "a spectator sent an action or a chat message"
    STALE_VERSION = "stale_version", None, "`version` is not the table's current version"
    CHAT_TOO_FAST = "chat_too_fast", None, (
        "more chat messages than the rate allows (section 5, `chat`); wait a moment")
    CHAT_EMPTY = "chat_empty", None, "a chat message shows nothing once trimmed"
    CHAT_TOO_LONG = "chat_too_long", None, "a chat message is longer than 200 characters"
    CHAT_CONTROL = "chat_control", None, (
        "a chat message holds control characters, line breaks, tag characters or bidi "
        "controls")
    CHAT_TOO_MANY_MARKS = "chat_too_many_marks", None, (
        "a chat message has more than 4 combining marks on one character")
    UNKNOWN_PHRASE = "unknown_phrase", None, "a chat phrase that is not one of `chat.phrases`"
    # ------------------------------------------------------------- the engine's refusals
    UNKNOWN_ACTION = "unknown_action", None, "`action` is not in the notation"
    NOT_YOUR_TURN = "not_your_turn", None, "another seat is to act"
    WRONG_PHASE = "wrong_phase", None, "the action does not belong to this phase of the deal"
    CARD_NOT_HELD = "card_not_held", None, "the seat does not hold that card"
    MUST_FOLLOW_SUIT = "must_follow_suit", None, "the seat must follow suit"
    MUST_BEAT = "must_beat", None, "the seat must play a higher card"
    MUST_TRUMP = "must_trump", None, "the seat must trump"
    MUST_OVERTRUMP = "must_overtrump", None, "the seat must overtrump"
    ILLEGAL_BID = "illegal_bid", None, "that bid is not allowed now"
    ILLEGAL_ANNOUNCE = "illegal_announce", None, "that declaration is not allowed"
    ILLEGAL_BELOT = "illegal_belot", None, "belot is not allowed with that card"
    ILLEGAL_ACTION = "illegal_action", None, "the rules do not allow that action now"
