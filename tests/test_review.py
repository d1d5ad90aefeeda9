"""The match review (ai/review.py): it sees only what the seat saw, it is repeatable, its
hindsight is the solver's, it lists every legal choice.  Tiny samples: speed is measured
in bench/analysis.py, not here."""

from __future__ import annotations

import copy
import json
from functools import cache
from typing import Any

import pytest

from ai.hard import Scorer
from ai.normal import NormalBot
from ai.review import (
    CONFIDENCE,
    HELD_OUT,
    MORE_SAMPLES,
    NO_ANNOUNCEMENT,
    THRESHOLDS,
    Estimate,
    Kind,
    _Judge,
    _moments,
    bid_samples,
    grade_of,
    review,
    review_json,
)
from ai.solver import Solver
from engine.actions import BELOT, action_name, is_announce
from engine.cards import card_name
from engine.match import Match
from engine.options import Options
from engine.record import read_options, replay, write_record


@cache
def _one_deal(variant: str, seed: int) -> dict[str, Any]:
    """The first deal of a match of normal bots (a deal with a contract)."""
    for s in range(seed, seed + 50):
        match = Match(Options.make(variant), seed=s)
        bot = NormalBot()
        deal = match.deal
        assert deal is not None
        while not deal.is_over:
            seat = match.current_player()
            assert seat is not None
            match.apply_action(bot.choose(match.observation(seat)), seat)
        if not deal.thrown_in:
            record = write_record(match)
            record["deals"] = record["deals"][:1]
            return record
    raise AssertionError("no deal with a contract")


def _cut(record: dict[str, Any], steps: int) -> dict[str, Any]:
    cut = copy.deepcopy(record)
    cut["deals"][0]["actions"] = cut["deals"][0]["actions"][:steps]
    return cut


def _card_steps(record: dict[str, Any]) -> list[int]:
    return [i for i, a in enumerate(record["deals"][0]["actions"]) if "card" in a]


def _free_step(record: dict[str, Any], card: int) -> int:
    """The step of the first card from the ``card``-th on that was not forced."""
    for step in _card_steps(record)[card:]:
        if sum(1 for a in _state(record, step).legal_actions() if a < BELOT) > 1:
            return step
    raise AssertionError("every card forced")


def _state(record: dict[str, Any], step: int) -> Match:
    """The match just before record action ``step`` of deal 0."""
    return replay(_cut(record, step))


def _swap_hidden(record: dict[str, Any], step: int) -> dict[str, Any]:
    """The same record up to ``step`` with two cards swapped between two hands the seat
    to move cannot see, such that the seat's observation there is unchanged."""
    before = _state(record, step)
    seat = before.current_player()
    assert seat is not None and before.deal is not None
    deck = record["deals"][0]["deck"].split(" ")
    hands = before.deal.hands
    for a in range(4):
        for b in range(a + 1, 4):
            if seat in (a, b):
                continue
            for x in (card_name(c) for c in range(32) if hands[a] >> c & 1):
                for y in (card_name(c) for c in range(32) if hands[b] >> c & 1):
                    other = _cut(record, step + 1)
                    i, j = deck.index(x), deck.index(y)
                    swapped = list(deck)
                    swapped[i], swapped[j] = y, x
                    other["deals"][0]["deck"] = " ".join(swapped)
                    try:
                        changed = _state(other, step)
                        replay(other)
                    except ValueError:
                        continue
                    if changed.observation(seat) == before.observation(seat):
                        return other
    raise AssertionError("no swap keeps the seat's view")


def _decision(result: Any, step: int, kind: str) -> Any:
    return next(d for d in result.decisions if d.step == step and d.kind == kind)


def _contested_call(record: dict[str, Any]) -> int:
    """The first call whose best on the review's choosing decks is not the call made (its
    loss is then measured on the held-out decks, the path worth testing)."""
    for step, action in enumerate(record["deals"][0]["actions"]):
        if "bid" in action:
            cut = _cut(record, step + 1)
            bids: tuple[Kind] = ("bid",)
            decision = _decision(review(cut, seed=5, samples=2, kinds=bids), step, "bid")
            if decision.choices[0].action != decision.played:
                return step
    raise AssertionError("no contested call in the deal")


@pytest.mark.slow
@pytest.mark.parametrize(("variant", "kind"), [("bulgarian", "card"), ("classic", "card"),
                                                ("bulgarian", "bid"), ("classic", "bid")])
def test_hidden_cards_do_not_change_the_informed_judgement(variant: str, kind: str) -> None:
    record = _one_deal(variant, 1)
    step = _free_step(record, 9) if kind == "card" else _contested_call(record)
    other = _swap_hidden(record, step)
    mine = _cut(record, step + 1)
    a, b = review(mine, seed=5, samples=2), review(other, seed=5, samples=2)
    da, db = _decision(a, step, kind), _decision(b, step, kind)
    assert [(c.action, c.value) for c in da.choices] == [(c.action, c.value) for c in db.choices]
    assert (da.best, da.loss, da.grade) == (db.best, db.loss, db.grade)
    assert _state(mine, step).deal.hands != _state(other, step).deal.hands  # type: ignore[union-attr]


@pytest.mark.slow
def test_same_seed_same_review_and_json() -> None:
    record = _cut(_one_deal("bulgarian", 2), 14)
    one = review_json(review(record, seed=3, samples=2))
    assert one == review_json(review(record, seed=3, samples=2))
    assert json.loads(json.dumps(one)) == one
    assert list(one) == ["seed", "samples", "unit", "confidence", "thresholds", "decisions",
                         "seats"]


def test_one_deal_measures_no_margin_and_the_json_stays_json() -> None:
    """With one sampled deal (``ANALYSIS_SAMPLES=1``, the tests' servers) a loss has no
    spread: its margin is null, not JSON's missing Infinity, which PostgreSQL refuses."""
    record = _cut(_one_deal("bulgarian", 2), 14)
    cards: tuple[Kind, ...] = ("card",)
    result = review_json(review(record, seed=3, samples=1, kinds=cards))
    assert json.loads(json.dumps(result, allow_nan=False)) == result
    assert result["decisions"] and all(
        d["margin"] is None or d["worlds"] > 1 for d in result["decisions"])


@pytest.mark.slow
def test_the_result_is_in_match_points_with_a_margin_for_every_loss() -> None:
    """Bulgarian scores in tens: a loss of 10 card points is one match point, and the
    thresholds the result states are the card thresholds over ten."""
    record = _cut(_one_deal("bulgarian", 2), 14)
    result = review_json(review(record, seed=3, samples=2))
    assert result["unit"] == "match_points" and result["confidence"] == CONFIDENCE
    assert result["thresholds"]["card"] == dict(zip(
        ("inaccuracy", "mistake", "blunder"), (x / 10 for x in THRESHOLDS["card"]), strict=True))
    measured = [d for d in result["decisions"] if d["loss"] > 0]
    assert measured and all(d["margin"] is not None and d["margin"] >= 0 for d in measured)
    for d in result["decisions"]:
        assert d["worlds"] >= 1 and set(d) >= {"deal", "step", "seat", "kind", "played",
                                               "best", "loss", "grade"}


def test_a_loss_within_its_uncertainty_is_not_a_mistake() -> None:
    """Two worlds of four where the card played loses 80 and two where it wins 0: a mean
    loss of 40 (past a mistake's 30), but so spread that it may be noise; the same 40 on
    every world is a mistake.  The differences are paired: the best choice's values may
    spread widely as long as its advantage over the choice made does not."""
    noisy = Estimate.paired({"AS": [80, 80, 0, 0], "7S": [0, 0, 0, 0]}, "7S")
    assert noisy.best == "AS" and noisy.loss == 40
    assert noisy.margin == pytest.approx(CONFIDENCE * 46.188 / 2, rel=1e-4)
    assert noisy.grade("card") == "good" and not noisy.settled("card")
    steady = Estimate.paired({"AS": [100, 40, 160, 60], "7S": [60, 0, 120, 20]}, "7S")
    assert steady.loss == 40 and steady.margin == 0 and steady.grade("card") == "mistake"
    assert steady.settled("card")


def test_the_choice_made_when_best_is_good_with_the_runner_ups_margin() -> None:
    estimate = Estimate.paired({"AS": [0, 10, 0, 10], "7S": [10, 10, 10, 10]}, "7S")
    assert (estimate.best, estimate.loss, estimate.grade("card")) == ("7S", 0.0, "good")
    assert estimate.margin == pytest.approx(CONFIDENCE * 5.7735 / 2, rel=1e-4)
    assert estimate.settled("card")  # the runner-up is 5 worse, give or take 6: good
    close = Estimate.paired({"AS": [30, 0, 20, -20], "7S": [10, 10, 10, 10]}, "7S")
    assert close.loss == 0 and not close.settled("card")  # AS might be 10 better: open


def test_a_calls_loss_is_the_mean_of_its_paired_gains() -> None:
    estimate = Estimate.of_gains([300, -100, 200, 0, 100, 100], "1H", "pass")
    assert (estimate.best, estimate.loss, estimate.worlds) == ("1H", 100, 6)
    assert estimate.grade("bid") == "good"  # 100 is an inaccuracy's, but give or take 115
    lost = Estimate.of_gains([-50, 10, -20], "1H", "pass")
    assert (lost.best, lost.loss, lost.grade("bid")) == ("pass", 0.0, "good")


@pytest.mark.slow
def test_judging_some_seats_judges_them_as_a_whole_review_does() -> None:
    record = _cut(_one_deal("classic", 2), 20)
    whole = review(record, seed=4, samples=2).decisions
    ours = review(record, seed=4, samples=2, seats=(0, 2)).decisions
    assert ours == tuple(d for d in whole if d.seat in (0, 2))
    assert {d.seat for d in whole} - {0, 2}  # the others were judged, and left out


@pytest.mark.slow
def test_hindsight_of_an_endgame_is_the_solvers() -> None:
    record = _one_deal("bulgarian", 3)
    step = _free_step(record, 24)  # from the seventh trick on
    match = _state(record, step)
    seat = match.current_player()
    assert seat is not None and match.deal is not None
    obs = match.observation(seat)
    assert obs.contract is not None
    scorer = Scorer(obs)
    solved = Solver(obs.contract, obs.options, 8).move_values(
        match.deal.hands, obs.trick, obs.leader, scorer.taken)
    expected = {card_name(c): scorer.score(v, list(match.deal.hands)) / 10  # match points
                for c, v in solved.items()}
    result = review(_cut(record, step + 1), samples=1)
    (decision,) = [d for d in result.decisions if d.step == step and d.kind == "card"]
    assert {c.action: c.hindsight for c in decision.choices} == pytest.approx(expected)
    best = max(expected.values())
    assert decision.hindsight_loss == pytest.approx(best - expected[decision.played])


@pytest.mark.slow
def test_every_legal_choice_is_listed_best_first_losses_not_negative() -> None:
    record = _cut(_one_deal("bulgarian", 4), 13)
    seen = []
    result = review(record, seed=1, samples=2, progress=lambda d, t: seen.append((d, t)))
    assert seen and seen[-1][0] == seen[-1][1] == len(result.decisions)
    for d in result.decisions:
        match = _state(record, d.step)
        legal = match.legal_actions()
        if d.kind == "card":
            names = {card_name(a) for a in legal if a < BELOT}
        elif d.kind == "announce":
            names = {action_name(a) for a in legal if is_announce(a)} | {NO_ANNOUNCEMENT}
        elif d.kind == "belot":
            names = {d.played.removesuffix("+belot"), d.played.removesuffix("+belot") + "+belot"}
        else:
            names = {action_name(a) for a in legal}
        listed = [c.action for c in d.choices]
        assert set(listed) == names and len(listed) == len(names)
        values = [c.value for c in d.choices]
        assert values == sorted(values, reverse=True) and d.loss >= 0
        if d.kind == "bid":  # its loss is measured on other decks (the next test)
            assert d.best == (listed[0] if d.loss > 0 else d.played)
        else:
            played = dict(zip(listed, values, strict=True))[d.played]
            assert d.best == listed[0] and d.loss == pytest.approx(max(values) - played)
            assert 2 <= d.worlds <= 2 * MORE_SAMPLES
        assert d.grade == grade_of(d.kind, 10 * (d.loss - (d.margin or 0.0)))
        assert d.hindsight_loss is None or d.hindsight_loss >= 0
    for s in result.seats:
        assert s.decisions == sum(s.counts.values())


@pytest.mark.slow
def test_a_calls_loss_is_measured_on_other_decks_than_chose_the_best() -> None:
    record = _one_deal("bulgarian", 1)
    bids: tuple[Kind] = ("bid",)
    result = review(record, seed=5, samples=2, kinds=bids)
    judge = _Judge(read_options(record), 5, 2)
    moments = [m for m in _moments(record) if m.kind == "bid"]
    assert len(moments) == len(result.decisions)
    held_out = 0
    for m, d in zip(moments, result.decisions, strict=True):
        decks = judge._decks(m)
        choosing, others = decks[:bid_samples(2)], decks[bid_samples(2):]
        assert len(others) == HELD_OUT * len(choosing)
        calls = {action_name(a): a for a in m.obs.legal_actions}
        for c in d.choices:  # in match points: bulgarian scores in tens
            assert c.value == pytest.approx(sum(judge._rollout(m, deck, calls[c.action])
                                                for deck in choosing) / len(choosing) / 10)
        best = d.choices[0].action
        if best != d.played:
            held_out += 1
            assert d.worlds == len(others)
            gains = [judge._rollout(m, deck, calls[best]) - judge._rollout(m, deck, calls[d.played])
                     for deck in others]
            assert d.loss == pytest.approx(max(0.0, sum(gains) / len(gains)) / 10)
            margin = Estimate.of_gains(gains, best, d.played).margin
            assert margin is not None and d.margin == pytest.approx(margin / 10)
        else:
            assert d.loss == 0 and d.margin is None
    assert held_out


def test_grades_follow_the_thresholds() -> None:
    inaccuracy, mistake, blunder = THRESHOLDS["card"]
    assert [grade_of("card", x) for x in (0, inaccuracy, mistake, blunder)] == [
        "good", "inaccuracy", "mistake", "blunder"]
    with pytest.raises(ValueError):
        review(_one_deal("bulgarian", 1), samples=0)
