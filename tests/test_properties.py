"""Property tests of the rules engine: random matches of both variants with random flags.

The expectations are computed by the rules reference (tests/reference.py), written from
RULES.md on card *names* and lists, never by calling the engine function under test.
"""

from __future__ import annotations

import copy
import json
import random
import re
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from itertools import dropwhile
from typing import Any

import pytest
from hypothesis import Phase, given, settings
from hypothesis import strategies as st

from engine.actions import ANNOUNCE, END, PASS
from engine.deal import Deal, legal_cards, trick_state
from engine.errors import IllegalActionError
from engine.match import Match
from engine.observation import Observation
from engine.options import Options
from engine.record import replay, replay_report, write_record
from engine.scoring import Tally, score_deal
from engine.variants import Bulgarian, Classic
from tests.positions import carre_played
from tests.reference import (
    CALL_NAMES,
    CARRE_ORDER,
    CARRE_VALUE,
    CONTRACTS,
    DEAL_TOTAL,
    RANKS,
    SUITS,
    combo_cards,
    is_trump,
    name,
    names_of,
    r_total,
    ref_announceable,
    ref_auction,
    ref_declaration_sets,
    ref_declarations,
    ref_hands,
    ref_legal_calls,
    ref_legal_cards,
    ref_match_step,
    ref_score_bulgarian,
    ref_score_classic,
    value,
    winner,
)
from tests.strategies import (
    FLAGS,
    VARIANTS,
    any_options,
    examples,
    options_for,
    play_random_match,
    random_match_steps,
    seeds,
)

# ====================================================================== helpers

CARD_TOKEN = re.compile(r"(?<![A-Za-z0-9])[789TJQKA][CDHS](?![A-Za-z0-9])")

# A seed shrinks to another, unrelated match: the match-based tests do not shrink, and
# say which options and seed failed (see ``context``).
MATCH_PHASES = (Phase.explicit, Phase.reuse, Phase.generate)


@contextmanager
def context(options: Options, seed: int) -> Iterator[None]:
    try:
        yield
    except AssertionError as e:
        raise AssertionError(
            f"{e}\n[variant {options.variant}, flags {options.applicable()}, seed {seed}]"
        ) from e



def deal_trick_cards(deal: Deal) -> list[tuple[int, str]]:
    """(seat, card) of every card played so far, from the deal's history."""
    return [(s, name(a % 32)) for s, a in deal.history if a < 64]


def announced_by(deal: Deal) -> list[tuple[int, frozenset[str]]]:
    return [(s, combo_cards(a - ANNOUNCE)) for s, a in deal.history if a >= ANNOUNCE]


def expected_legal_actions(deal: Deal) -> set[str]:
    """Every action open to the player to move, by the reference, in readable form."""
    if deal.phase == "auction":
        return ref_legal_calls(deal)
    assert deal.phase == "play"
    opts = deal.options
    contract = CONTRACTS[deal.contract]
    me = deal.to_move
    hand = names_of(deal.hands[me])
    trick = [name(c) for c in deal.trick]
    out = set(ref_legal_cards(hand, trick, contract, opts))
    for card in list(out):
        partner_card = ("K" if card[0] == "Q" else "Q") + card[1]
        if (card[0] in "QK" and contract != "NT" and is_trump(card, contract)
                and partner_card in hand
                and (contract != "AT" or not trick or trick[0][1] == card[1])):
            out.add(card + "+belot")
    if isinstance(opts, Bulgarian) and contract != "NT" and not deal.tricks:
        mine = {c for s, c in announced_by(deal) if s == me}
        for combo in ref_announceable(set(names_of(deal.dealt[me])), mine, opts):
            out.add("announce " + combo_text(combo))
    return out


def combo_text(cards: Iterable[str]) -> str:
    return " ".join(sorted(cards, key=lambda c: (SUITS.index(c[1]), RANKS.index(c[0]))))


def readable(action: int) -> str:
    if action < 32:
        return name(action)
    if action < 64:
        return name(action - 32) + "+belot"
    if action in CALL_NAMES:
        return CALL_NAMES[action]
    return "announce " + combo_text(combo_cards(action - ANNOUNCE))


def actions_done(match: Match) -> int:
    return sum(len(d.history) for d in match.deals)


def snapshot(match: Match) -> Any:
    return (
        [match.observation(s).to_dict() for s in range(4)],
        match.legal_actions(),
        match.current_player(),
        match.totals,
        len(match.deals),
    )


def deal_state(deal: Deal) -> Any:
    return (
        list(deal.hands), list(deal.trick), list(deal.tricks), list(deal.points),
        list(deal.tricks_won), deal.to_move, deal.leader, deal.win_seat, deal.win_card,
        deal.phase, list(deal.belots), deal.legal_actions(),
    )


# ====================================================================== tests


@pytest.mark.parametrize("variant", VARIANTS)
def test_flags_match_rules(variant: str) -> None:
    """The engine knows exactly the flags of RULES §9, with their defaults and values."""
    default = Options.make(variant)
    applicable = default.applicable()
    assert set(applicable) == set(FLAGS[variant])
    for flag, values in FLAGS[variant].items():
        if flag != "target_score":
            assert applicable[flag] == values[0], flag
        for v in values:
            assert getattr(Options.make(variant, **{flag: v}), flag) == v
        with pytest.raises(ValueError):
            Options.make(variant, **{flag: "no-such-value"})
    other = FLAGS["classic" if variant == "bulgarian" else "bulgarian"]
    for flag, values in other.items():
        if flag not in FLAGS[variant]:
            with pytest.raises(ValueError):
                Options.make(variant, **{flag: values[0]})
    assert applicable["target_score"] == (151 if variant == "bulgarian" else 1000)


def check_finished_deal(match: Match, i: int, carry_in: int) -> int:
    """Check deal ``i`` of ``match`` against the reference; returns the pool after it."""
    deal, result = match.deals[i], match.results[i]
    opts = match.options
    auction = ref_auction(deal.history)
    if auction.contract is None:
        assert result.outcome == "redeal"
        assert result.score == (0, 0)
        assert result.hanging == carry_in
        assert len(auction.calls) == (8 if opts.variant == "classic" else 4)
        assert all(c == "pass" for _, c in auction.calls)
        return carry_in
    contract = auction.contract
    assert auction.declarer is not None
    assert (result.contract, result.bidder, result.multiplier) == (
        CONTRACTS.index(contract), auction.declarer, auction.multiplier)
    taker = auction.declarer if opts.variant == "classic" else None
    hands = ref_hands([name(c) for c in deal.deck], deal.dealer, opts.variant == "classic", taker)
    assert [set(names_of(h)) for h in deal.dealt] == hands

    # the eight tricks: who leads, who wins, what they are worth (§1.6, §5.1)
    played = deal_trick_cards(deal)
    assert len(played) == 32
    cp = [0, 0]
    tricks_won = [0, 0]
    leader = (deal.dealer + 1) % 4
    for t in range(8):
        trick = played[4 * t:4 * t + 4]
        assert [s for s, _ in trick] == [(leader + k) % 4 for k in range(4)]
        cards = [c for _, c in trick]
        assert all(c in hands[s] for s, c in trick)
        leader = trick[winner(cards, contract)][0]
        cp[leader % 2] += sum(value(c, contract) for c in cards) + (10 if t == 7 else 0)
        tricks_won[leader % 2] += 1
    assert cp[0] + cp[1] == DEAL_TOTAL.get(contract, 162)
    assert result.card_points == (cp[0], cp[1])
    assert [(ld, tuple(name(c) for c in cs)) for ld, cs in deal.tricks] == [
        (played[4 * t][0], tuple(c for _, c in played[4 * t:4 * t + 4])) for t in range(8)]
    valat = 0 if tricks_won[1] == 0 else 1 if tricks_won[0] == 0 else None
    assert result.valat == valat

    # announcements: only in bulgarian suit/AT deals, from the seat's own dealt hand
    announced = announced_by(deal)
    decl = (0, 0)
    if not isinstance(opts, Bulgarian) or contract == "NT":
        assert not announced
    else:
        for seat in range(4):
            mine = [c for s, c in announced if s == seat]
            assert len(set(mine)) == len(mine)
            assert any(set(mine) <= full for full in ref_declaration_sets(hands[seat], opts))
        decl = ref_declarations(announced, contract, opts) if announced else (0, 0)
    assert result.declarations == decl

    # belots: K+Q of a trump suit in one hand, announced with the first of the two
    belots = [0, 0]
    for k, (seat, action) in enumerate(deal.history):
        if not 32 <= action < 64:
            continue
        card = name(action - 32)
        other = ("K" if card[0] == "Q" else "Q") + card[1]
        assert card[0] in "QK" and contract != "NT" and is_trump(card, contract)
        assert other in hands[seat]
        earlier = [name(a % 32) for s, a in deal.history[:k] if s == seat and a < 64]
        assert other not in earlier
        belots[seat % 2] += 1
    assert result.belot == (20 * belots[0], 20 * belots[1])

    if isinstance(opts, Classic):
        exp = ref_score_classic(auction.declarer % 2, (cp[0], cp[1]), (belots[0], belots[1]),
                                valat, carry_in, opts)
        cs_sum = 252 if valat is not None else 162
        assert sum(result.score) + result.hanging == cs_sum + 20 * sum(belots) + carry_in
    else:
        assert isinstance(opts, Bulgarian)
        exp = ref_score_bulgarian(contract, auction.declarer % 2, auction.multiplier,
                                  (cp[0], cp[1]), decl, (belots[0], belots[1]), valat,
                                  carry_in, opts)
        factor = 2 if contract == "NT" else 1
        t = factor * (cp[0] + cp[1]) + decl[0] + decl[1] + 20 * sum(belots)
        t += 90 if valat is not None else 0
        m = 1 if valat is not None and not opts.valat_multiplied else auction.multiplier
        # §7.2-§7.4: no ten is created or lost
        assert sum(result.score) + result.hanging == r_total(t) * m + carry_in
    assert (result.outcome, result.score, result.hanging) == (
        exp.outcome, exp.score, exp.hanging), f"deal {i}: {result} != {exp}, {opts}"
    return result.hanging


def ref_match_end(match: Match) -> tuple[int | None, int, int]:
    """§7.8 / §8.3 over the match's results: (winner, deals played until then, target)."""
    totals = [0, 0]
    target = match.options.target_score
    for n, r in enumerate(match.results, 1):
        win, target = ref_match_step(totals, target, r.outcome, r.score, r.valat, match.options)
        if win is not None:
            return win, n, target
    return None, len(match.results), target


@settings(max_examples=examples(300), deadline=None, phases=MATCH_PHASES)
@given(options=any_options(), seed=seeds)
def test_deals_points_and_scores(options: Options, seed: int) -> None:
    """Card points add up to the contract's total and every deal scores as RULES §7/§8 say."""
    with context(options, seed):
        match = play_random_match(options, seed)
        assert match.is_over
        assert len(match.results) == len(match.deals)
        pool = 0
        for i in range(len(match.results)):
            pool = check_finished_deal(match, i, pool)
            if i + 1 < len(match.deals):
                assert match.deals[i + 1].dealer == (match.deals[i].dealer + 1) % 4
        assert match.pool == pool
        totals = tuple(sum(r.score[t] for r in match.results) for t in (0, 1))
        assert match.totals == totals
        win, played, target = ref_match_end(match)
        assert match.winner == win
        assert played == len(match.results)
        assert match.progress.target == target


@settings(max_examples=examples(600), deadline=None)
@given(
    options=any_options(),
    split=st.integers(0, 1000),
    last=st.integers(0, 1),
    decl=st.tuples(*[st.sampled_from([0, 0, 20, 40, 50, 70, 100, 150, 200, 270])] * 2),
    belots=st.tuples(st.integers(0, 2), st.integers(0, 2)),
    bidder=st.integers(0, 3),
    multiplier=st.sampled_from([1, 2, 4]),
    valat=st.sampled_from([None, None, None, 0, 1]),
    pool=st.sampled_from([0, 0, 8, 16, 64, 81]),
    contract=st.integers(0, 5),
)
def test_score_deal_matches_reference(
    options: Options, split: int, last: int, decl: tuple[int, int], belots: tuple[int, int],
    bidder: int, multiplier: int, valat: int | None, pool: int, contract: int,
) -> None:
    """scoring.score_deal on arbitrary (reachable-looking) tallies against §7/§8."""
    if options.variant == "classic":
        contract %= 4
        multiplier = 1
        decl = (0, 0)
        belots = (min(belots[0], 1), 0 if belots[0] else min(belots[1], 1))
    name_ = CONTRACTS[contract]
    if name_ == "NT":
        decl, belots = (0, 0), (0, 0)
    total = DEAL_TOTAL.get(name_, 162) - 10
    cards = split % (total + 1)
    cp = [cards, total - cards]
    if valat is not None:
        cp = [total, 0] if valat == 0 else [0, total]
        last = valat
    cp[last] += 10
    tally = Tally(contract, bidder, multiplier, (cp[0], cp[1]), decl, belots, valat)
    got = score_deal(tally, pool, options)
    if isinstance(options, Classic):
        exp = ref_score_classic(bidder % 2, (cp[0], cp[1]), belots, valat, pool, options)
    else:
        assert isinstance(options, Bulgarian)
        exp = ref_score_bulgarian(name_, bidder % 2, multiplier, (cp[0], cp[1]), decl,
                                  belots, valat, pool, options)
    assert (got.outcome, got.score, got.hanging) == (
        exp.outcome, exp.score, exp.hanging), f"{tally}, pool {pool}, {options}"
    assert got.card_points == (cp[0], cp[1])


@settings(max_examples=examples(200), deadline=None, phases=MATCH_PHASES)
@given(options=any_options(), seed=seeds)
def test_legal_actions_match_reference(options: Options, seed: int) -> None:
    """At every step of a random match, legal_actions() is exactly the reference set."""
    with context(options, seed):
        for match, legal, _ in random_match_steps(options, seed):
            deal = match.deal
            assert deal is not None
            if deal.phase == "auction":
                calls = ref_auction(deal.history).calls
                assert deal.to_move == (deal.dealer + 1 + len(calls)) % 4
            else:
                assert deal.to_move == (deal.leader + len(deal.trick)) % 4
            assert legal == sorted(legal)
            assert len(set(legal)) == len(legal)
            got = {readable(a) for a in legal}
            assert got == expected_legal_actions(deal), (deal.history, deal.trick)


@st.composite
def card_positions(draw: st.DrawFn) -> tuple[Options, list[int], list[int], int]:
    """A random hand and a random partial trick (0..3 cards) under a random contract."""
    options = draw(any_options())
    cards = draw(st.permutations(range(32)))
    trick_len = draw(st.integers(0, 3))
    hand_len = draw(st.integers(1, 8))
    contract = draw(st.integers(0, 3 if options.variant == "classic" else 5))
    return options, cards[:trick_len], cards[trick_len:trick_len + hand_len], contract


@pytest.mark.slow
@settings(max_examples=examples(800), deadline=None)
@given(position=card_positions())
def test_legal_cards_match_reference(position: tuple[Options, list[int], list[int], int]) -> None:
    """engine.deal.legal_cards against §5.2/§5.3 on random hands and tricks."""
    options, trick, hand, contract = position
    trick_names = [name(c) for c in trick]
    cname = CONTRACTS[contract]
    hand_mask = sum(1 << c for c in hand)
    if trick:
        w = winner(trick_names, cname)
        win_card, partner = trick[w], (len(trick) - w) % 2 == 0
    else:
        win_card, partner = -1, False
    got = legal_cards(hand_mask, trick, win_card, partner, contract, options)
    expected = ref_legal_cards([name(c) for c in hand], trick_names, cname, options)
    assert set(names_of(got)) == expected


def action_space() -> list[int]:
    return [*range(0, 73), *range(ANNOUNCE, END), -1, -33, 73, 79, END, END + 1, 10**6]


@pytest.mark.slow
@settings(max_examples=examples(15), deadline=None, phases=MATCH_PHASES)
@given(options=any_options(), seed=seeds)
def test_actions_applied_or_refused(options: Options, seed: int) -> None:
    """Legal actions apply; every other action is refused and changes nothing."""
    with context(options, seed):
        pick = random.Random(seed ^ 0x5EED)
        checked = 0
        space = action_space()
        match: Match | None = None
        for match, legal, _ in random_match_steps(options, seed):
            if checked >= 8 or pick.random() > 0.06:
                continue
            checked += 1
            before = snapshot(match)
            for action in space:
                if action in legal:
                    trial = copy.deepcopy(match)
                    trial.apply_action(action)
                    assert actions_done(trial) == actions_done(match) + 1
                    continue
                with pytest.raises(IllegalActionError):
                    match.apply_action(action)
                assert snapshot(match) == before, action
            mover = match.current_player()
            assert mover is not None
            for seat in range(4):
                if seat != mover:
                    with pytest.raises(IllegalActionError):
                        match.apply_action(legal[0], seat)
            assert snapshot(match) == before
            trial = copy.deepcopy(match)
            trial.apply_action(legal[0], mover)
        assert match is not None and match.is_over
        before = snapshot(match)
        for action in space:
            with pytest.raises(IllegalActionError):
                match.apply_action(action)
        assert snapshot(match) == before


@settings(max_examples=examples(50), deadline=None, phases=MATCH_PHASES)
@given(options=any_options(), seed=seeds)
def test_push_pop_restores(options: Options, seed: int) -> None:
    """push/pop of every legal card leaves the deal as it was; so do push runs then pops."""
    with context(options, seed):
        pick = random.Random(seed ^ 0xBEEF)
        checked = 0
        for match, _, _ in random_match_steps(options, seed):
            deal = match.deal
            assert deal is not None
            if deal.phase != "play" or checked >= 6 or pick.random() > 0.1:
                continue
            checked += 1
            start = deal_state(deal)
            views = [match.observation(s).to_dict() for s in range(4)]
            for action in [a for a in deal.legal_actions() if a < 64]:
                deal.push(action)
                deal.pop()
                assert deal_state(deal) == start, action
            # a random run of pushes, checked against apply on a copy, then undone
            applied = deal.copy()
            pushed = 0
            limit = pick.randrange(1, 33)
            while deal.phase == "play" and pushed < limit:
                action = pick.choice([a for a in deal.legal_actions() if a < 64])
                deal.push(action)
                applied.apply(action)
                pushed += 1
                assert deal_state(deal) == deal_state(applied)
            if deal.phase == "over":
                assert sum(deal.points) == DEAL_TOTAL.get(CONTRACTS[deal.contract], 162)
            for _ in range(pushed):
                deal.pop()
            assert deal_state(deal) == start
            assert [match.observation(s).to_dict() for s in range(4)] == views


@settings(max_examples=examples(50), deadline=None, phases=MATCH_PHASES)
@given(options=any_options(), seed=seeds, stop=st.one_of(st.none(), st.integers(0, 400)))
def test_record_round_trip(options: Options, seed: int, stop: int | None) -> None:
    """write_record of a live match replays to the same deals, results, totals and winner.

    The format attaches announcements to the card they go with, so announcements made
    just before the point where the match stops are not in the record (RECORD.md).
    """
    with context(options, seed):
        match = play_random_match(options, seed, max_actions=stop)
        doc = write_record(match, seats=[{"name": f"p{i}", "kind": "bot"} for i in range(4)])
        last = match.deals[-1].history
        pending = len(last) - len(list(dropwhile(lambda e: e[1] >= ANNOUNCE, reversed(last))))
        for copy_ in (doc, json.loads(json.dumps(doc))):
            again = replay(copy_)
            assert len(again.deals) == len(match.deals)
            for a, b in zip(again.deals, match.deals, strict=True):
                written = b.history[:len(b.history) - pending] if b is match.deal else b.history
                assert (a.dealer, a.deck, a.history) == (b.dealer, b.deck, written)
            assert [r.to_dict() for r in again.results] == [r.to_dict() for r in match.results]
            assert again.totals == match.totals
            assert again.winner == match.winner
            assert again.pool == match.pool
            assert replay_report(again) == replay_report(match)
            if not pending:
                assert again.legal_actions() == match.legal_actions()
                assert snapshot(again) == snapshot(match)
            rewritten = write_record(again, seats=doc["seats"])
            assert rewritten == doc


def reference_kind(combo: frozenset[str]) -> str:
    """What is said aloud of a combination (§6.1)."""
    if len({c[0] for c in combo}) == 1:
        return "carre"
    return {3: "tierce", 4: "quarte"}.get(len(combo), "quint")


def check_private(match: Match, seat: int | None) -> None:
    """``seat``'s view shows its own cards, played cards and public facts only; the
    public observation (``seat`` None), played cards and public facts only."""
    deal = match.deal
    assert deal is not None
    observation = match.public_observation() if seat is None else match.observation(seat)
    view = observation.to_dict()
    over = deal.is_over
    own = set() if seat is None else set(names_of(deal.hands[seat]))
    if seat is None:
        assert not isinstance(observation, Observation)  # no field for a hand at all
        assert view["seat"] is None and view["legal_actions"] == []
    else:
        assert view["seat"] == seat
    played = {name(c) for c in deal.trick} | {name(c) for _, cs in deal.tricks for c in cs}
    turned = {name(deal.turned)} if deal.turned is not None else set()
    visible = own | played | turned
    announced = announced_by(deal)
    for s, combo in announced:
        if s == seat or over:
            visible |= combo
    # the last finished deal before this one: its announcements are revealed (RULES §6.3)
    finished = [d for d in match.deals[-2:] if d.is_over and d is not deal]
    previous = announced_by(finished[-1]) if finished else []
    for _, combo in previous:
        visible |= combo
    # and its last trick, which every seat saw fall, with who took it
    last = finished[-1].tricks[-1] if finished and finished[-1].tricks else None
    if last is None:
        assert view["previous_trick"] is None
    else:
        leader, cards = last
        winner = trick_state(cards, leader, finished[-1].contract)[0]
        assert view["previous_trick"] == {"leader": leader, "cards": [name(c) for c in cards],
                                          "winner": winner}
        visible |= {name(c) for c in cards}

    assert view["hand"] is not None and set(view["hand"]) == own
    assert len(view["hand"]) == len(own)
    assert view["hand_sizes"] == [h.bit_count() for h in deal.hands]
    assert [c for t in view["tricks"] for c in t["cards"]] == [
        name(c) for _, cs in deal.tricks for c in cs]
    assert view["trick"]["cards"] == [name(c) for c in deal.trick]
    if deal.options.variant == "classic":
        assert view["turned"] == (None if deal.turned is None else name(deal.turned))
    else:
        assert view["turned"] is None
    assert len(view["announcements"]) == len(announced)
    for shown, typed, (s, combo) in zip(
            view["announcements"], observation.announcements, announced, strict=True):
        assert shown["seat"] == s
        assert shown["kind"] == typed.kind == reference_kind(combo)
        rank = next(iter(combo))[0] if typed.kind == "carre" else None
        if s == seat or over:
            assert shown["cards"] is not None and set(shown["cards"]) == combo
        else:
            assert shown["cards"] is None
            assert shown.get("scored") is None  # which ones score says which were higher
            # a hidden carré's rank only when its value, said aloud, names it (J, 9)
            if rank is not None and list(CARRE_VALUE.values()).count(CARRE_VALUE[rank]) > 1:
                rank = None
        assert typed.rank == (None if rank is None else RANKS.index(rank))
    assert len(view["previous_announcements"]) == len(previous)
    for shown, (s, combo) in zip(view["previous_announcements"], previous, strict=True):
        assert shown["seat"] == s
        assert shown["cards"] is not None and set(shown["cards"]) == combo
    if match.current_player() != seat:
        assert view["legal_actions"] == []

    allowed_paths = {("hand",), ("turned",), ("tricks", "cards"), ("trick", "cards"),
                     ("announcements", "cards"), ("previous_announcements", "cards"),
                     ("previous_trick", "cards"),
                     ("legal_actions",)}

    def walk(node: Any, path: tuple[str, ...]) -> None:
        if isinstance(node, dict):
            for k, v in node.items():
                assert not CARD_TOKEN.search(str(k)), (path, k)
                walk(v, (*path, str(k)))
        elif isinstance(node, list):
            for v in node:
                walk(v, path)
        elif isinstance(node, str):
            found = CARD_TOKEN.findall(node)
            if found:
                assert path in allowed_paths, (path, node)
                assert set(found) <= visible, (path, node, set(found) - visible)
                if path == ("legal_actions",):
                    assert set(found) <= own

    walk(view, ())


VIEWERS = (0, 1, 2, 3, None)  # every seat, and anyone without one


@pytest.mark.slow
@settings(max_examples=examples(15), deadline=None, phases=MATCH_PHASES)
@given(options=any_options(), seed=seeds)
def test_observation_hides_other_hands(options: Options, seed: int) -> None:
    """No seat's view ever holds another seat's unplayed cards, the public one none."""
    with context(options, seed):
        for match, _, _ in random_match_steps(options, seed):
            for seat in VIEWERS:
                check_private(match, seat)
        # a finished deal (the match is over, so no new deal replaced it) reveals announcements
        for seat in VIEWERS:
            check_private(match, seat)


@pytest.mark.parametrize("rank", CARRE_ORDER)
def test_a_hidden_carre_is_named_by_its_value_alone(rank: str) -> None:
    """Seat 1's carré of each rank, announced: while the deal runs its rank reaches the
    other seats and the public view only when its value names it (jacks, nines)."""
    match = carre_played(rank, CONTRACTS.index("H"))
    for seat in VIEWERS:
        check_private(match, seat)


def cut_only_options() -> st.SearchStrategy[Options]:
    """Random flags of either variant, but the next deck is always a cut of the last."""
    return any_options().map(
        lambda o: Options.make(o.variant, **(o.applicable() | {"reshuffle_each_deal": False})))


MOST_DEALS = 12


@settings(max_examples=10, deadline=None, phases=MATCH_PHASES)
@given(options=cut_only_options(), seed=seeds)
def test_observation_hides_a_thrown_in_deck(options: Options, seed: int) -> None:
    """Cut only, most deals thrown in: the next deal is dealt from a cut of a deck nobody
    saw (RECORD.md), so no view may show any card of it that its seat does not hold.
    Twelve deals at most: with nine passes in ten a match to its end could run for
    hundreds of deals, and its time would depend on the draw."""
    with context(options, seed):
        rng = random.Random(seed)
        match = Match(options, seed=seed)
        while not match.is_over and len(match.results) < MOST_DEALS:
            for seat in VIEWERS:
                check_private(match, seat)
            legal = match.legal_actions()
            passing = len(match.results) < 2 or rng.random() < 0.9  # the first two thrown in
            match.apply_action(PASS if PASS in legal and passing else rng.choice(legal))
        assert [r.outcome for r in match.results[:2]] == ["redeal", "redeal"]


@settings(max_examples=examples(15), deadline=None, phases=MATCH_PHASES)
@given(options=any_options(), seed=seeds)
def test_same_seed_same_match(options: Options, seed: int) -> None:
    with context(options, seed):
        first = play_random_match(options, seed)
        second = play_random_match(options, seed)
        assert write_record(first) == write_record(second)
        assert [r.to_dict() for r in first.results] == [r.to_dict() for r in second.results]
        assert (first.totals, first.winner) == (second.totals, second.winner)
        assert Match(options, seed=seed).deal is not None
        a, b = Match(options, seed=seed), Match(options, seed=seed)
        assert a.deal is not None and b.deal is not None
        assert (a.deal.dealer, a.deal.deck) == (b.deal.dealer, b.deal.deck)


@pytest.mark.parametrize("variant", VARIANTS)
def test_options_strategy_draws_every_flag(variant: str) -> None:
    """The strategies really vary every flag (a guard for the property tests above)."""
    seen: dict[str, set[Any]] = {flag: set() for flag in FLAGS[variant]}

    @settings(max_examples=200, deadline=None, database=None)
    @given(options=options_for(variant))
    def collect(options: Options) -> None:
        for flag in seen:
            seen[flag].add(getattr(options, flag))

    collect()
    for flag, values in FLAGS[variant].items():
        assert seen[flag] == set(values), flag
