"""One exception type per way an action can be refused, so callers can tell them apart."""

from __future__ import annotations


class IllegalActionError(ValueError):
    """An action the rules do not allow now.  ``code`` is a stable machine-readable name."""

    code = "illegal_action"


class NotYourTurnError(IllegalActionError):
    code = "not_your_turn"


class WrongPhaseError(IllegalActionError):
    code = "wrong_phase"


class GameOverError(IllegalActionError):
    code = "game_over"


class CardNotHeldError(IllegalActionError):
    code = "card_not_held"


class MustFollowSuitError(IllegalActionError):
    code = "must_follow_suit"


class MustBeatError(IllegalActionError):
    code = "must_beat"


class MustTrumpError(IllegalActionError):
    code = "must_trump"


class MustOvertrumpError(IllegalActionError):
    code = "must_overtrump"


class IllegalBidError(IllegalActionError):
    code = "illegal_bid"


class IllegalAnnounceError(IllegalActionError):
    code = "illegal_announce"


class IllegalBelotError(IllegalActionError):
    code = "illegal_belot"


class UnknownActionError(IllegalActionError):
    code = "unknown_action"
