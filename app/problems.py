"""Problems from one's own mistakes (issue #35): the decisions of an analysed match that
lost at least a mistake's worth, each turned into a position to solve ("find the best card
/ call") and the analysis's answer to show after the attempt.

The grade, the values and their unit are read from the stored review (``ai.review``'s
JSON) as it is, not judged again here: a decision is a problem when the analysis graded it
a mistake or a blunder.  The position is the acting seat's own view then
(:func:`app.views.seat_view`, built by the engine from what that seat may see), so a
problem never shows a card the seat could not see.  Pure: no I/O."""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from engine import Match
from engine.actions import is_call, is_play
from engine.cards import parse_card
from engine.record import read_action, read_options

from .views import seat_view

KINDS = ("card", "bid")  # what a player is asked to find
PROBLEM_GRADES = frozenset({"mistake", "blunder"})
BELOT_SUFFIX = "+belot"
# The last finished deal's trick and announcements, which a table shows between deals: no
# part of this deal's problem (and their cards are this deal's names for other cards).
PAST = ("previous_trick", "previous_announcements")


@dataclass(frozen=True, slots=True)
class Draft:
    """A problem before it is stored: where it is, what the seat saw, the answer."""

    id: str
    deal: int
    step: int
    kind: str
    seat: int
    position: dict[str, Any]
    answer: dict[str, Any]


def problem_id(match_id: str, deal: int, step: int, kind: str) -> str:
    """Stable, so that storing a match's problems twice stores them once."""
    return hashlib.sha256(f"{match_id}:{deal}:{step}:{kind}".encode()).hexdigest()[:16]


def drafts(match_id: str, record: Mapping[str, Any], result: Mapping[str, Any]
           ) -> list[Draft]:
    """The match's problems: each card or call its review graded a mistake or worse, in
    the seat's view before it acted; a decision the record does not bear out is left out."""
    wanted = [d for d in result.get("decisions", ())
              if d.get("kind") in KINDS and d.get("grade") in PROBLEM_GRADES]
    if not wanted:
        return []
    views = _views(record, {(d["deal"], d["step"]) for d in wanted})
    found = []
    for d in wanted:
        seen = views.get((d["deal"], d["step"]))
        if seen is None or seen[0] != d["seat"]:
            continue
        answer = _answer(d, seen[1], result)
        if answer is not None:
            found.append(Draft(problem_id(match_id, d["deal"], d["step"], d["kind"]),
                               d["deal"], d["step"], d["kind"], d["seat"], seen[1], answer))
    return found


def _views(record: Mapping[str, Any], wanted: set[tuple[int, int]]
           ) -> dict[tuple[int, int], tuple[int, dict[str, Any]]]:
    """Replay the record; before the call or card of each wanted (deal, step), the acting
    seat and its view (after its announcements of that step, as the review judged it)."""
    deals = record["deals"]
    match = Match(read_options(record), dealer=deals[0]["dealer"] if deals else 0,
                  auto_deal=False)
    views: dict[tuple[int, int], tuple[int, dict[str, Any]]] = {}
    for i, entry in enumerate(deals):
        if all(deal < i for deal, _ in wanted):
            break
        match.start_deal([parse_card(c) for c in entry["deck"].split(" ")])
        for step, raw in enumerate(entry["actions"]):
            seat = raw["seat"]
            for action in read_action(raw):
                if (i, step) in wanted and (i, step) not in views and (
                        is_call(action) or is_play(action)):
                    view = {k: v for k, v in seat_view(match, seat).items() if k not in PAST}
                    view["table_direction"] = match.options.table_direction
                    views[(i, step)] = (seat, view)
                match.apply_action(action, seat)
    return views


def options_of(kind: str, legal: list[str]) -> list[str]:
    """The choices a problem offers: the calls, or the cards (a belot is not the
    question, nor an announcement), in the view's order."""
    if kind == "bid":
        return list(legal)
    cards = [a.removesuffix(BELOT_SUFFIX) for a in legal if not a.startswith("announce")]
    return list(dict.fromkeys(cards))


def _answer(d: Mapping[str, Any], view: Mapping[str, Any], result: Mapping[str, Any]
            ) -> dict[str, Any] | None:
    """What the attempt learns: the best and played choices, the loss, and every valued
    choice's value and its loss against the best value; None if the review and the view
    disagree (a record the review did not judge)."""
    options = options_of(d["kind"], view.get("legal_actions", []))
    values = {c["action"]: float(c["value"]) for c in d.get("choices", ())
              if isinstance(c.get("value"), (int, float))}
    if d["best"] not in values or d["played"] not in options or not set(values) <= set(
            options):
        return None
    top = max(values.values())
    thresholds = result.get("thresholds", {}).get(d["kind"], {})
    good_below = thresholds.get("inaccuracy") if isinstance(thresholds, Mapping) else None
    return {
        "options": options, "best": d["best"], "played": d["played"], "loss": d["loss"],
        "grade": d["grade"], "unit": d.get("unit", result.get("unit")),
        "good_below": good_below,
        "choices": [{"action": a, "value": v, "loss": round(top - v, 2)}
                    for a, v in sorted(values.items(), key=lambda kv: -kv[1])],
    }


def judge(answer: Mapping[str, Any], action: str) -> tuple[bool, float | None]:
    """Whether ``action`` solves the problem, and its loss (None: the analysis did not
    value it, a call beyond the best it lists).  Right: the best choice, or one the
    analysis would have graded good (a loss under its inaccuracy threshold: a card worth
    the best's), never the choice that was the mistake."""
    loss = next((c["loss"] for c in answer["choices"] if c["action"] == action), None)
    if action == answer["best"]:
        return True, loss
    if action == answer["played"] or loss is None:
        return False, loss
    good_below = answer.get("good_below")
    return (loss < good_below if isinstance(good_below, (int, float)) else loss <= 0), loss
