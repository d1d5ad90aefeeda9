"""The variant registry (engine.VARIANTS): every variant is one rules class, and a new one
is one module and its registration, as docs/variants.md says.  ``EightCards`` below is such
a module, written here: matches, records, summaries, the easy and normal bots, the exact
search and the server's variant list take it without a change anywhere else."""

from __future__ import annotations

import asyncio
import random
from dataclasses import dataclass

import pytest

from ai.bot import make_bot
from ai.solver import NATIVE, Solver
from app.api.routes import server
from engine import VARIANTS, Deal, Match, Options, Variant, find_variant, replay, write_record
from engine.actions import BID, PASS, Action, is_contract
from engine.options import flag
from engine.scoring import FAILED, MADE, Tally
from engine.summary import score_summary
from engine.variants import Bulgarian, Classic


@dataclass(frozen=True, slots=True)
class EightCards(Options):
    """A made-up variant: all eight cards before a one-round auction of suits in which the
    first bid takes; a contract is made with more card points than the defenders."""

    variant = "eight_cards"
    packets_before = (3, 3, 3, 3, 2, 2, 2, 2, 3, 3, 3, 3)
    packets_after = ()
    turns_card = False
    contracts = (0, 1, 2, 3)
    multipliers = (1,)
    auction_rounds = 1
    bid_ends_auction = True
    card_scale = 1

    target_score: int = flag(default=300)
    made_bonus: int = flag(0, 20)

    def legal_calls(self, deal: Deal) -> list[Action]:
        return [BID + k for k in self.contracts] + [PASS]

    def score(self, tally: Tally, pool: int) -> tuple[str, tuple[int, int], int]:
        b = tally.bidder & 1
        points = list(tally.card_points)
        if points[b] > points[1 - b]:
            points[b] += self.made_bonus + pool
            return MADE, (points[0], points[1]), 0
        points = [0, 0]
        points[1 - b] = 162 + pool
        return FAILED, (points[0], points[1]), 0


@pytest.fixture
def eight_cards(monkeypatch: pytest.MonkeyPatch) -> type[Options]:
    monkeypatch.setitem(VARIANTS, EightCards.variant, EightCards)
    return EightCards


def test_the_registry_names_each_variant_once() -> None:
    assert list(VARIANTS) == [v.value for v in Variant] == ["bulgarian", "classic", "coinche"]
    assert [v.name for v in Variant] == ["BULGARIAN", "CLASSIC", "COINCHE"]
    for name, rules in VARIANTS.items():
        assert rules.variant == name
        assert find_variant(name) is rules
        assert type(Options.make(name)) is rules
        assert type(rules.make()) is rules  # the class it is called on, not Bulgarian
        assert rules.make(name) == Options.make(name)
    for bad in ("belote", None, ["classic"]):
        with pytest.raises(ValueError, match="unknown variant"):
            find_variant(bad)
    with pytest.raises(ValueError, match="makes classic rules"):
        Classic.make("bulgarian")
    assert type(Options.make()) is Bulgarian
    assert Classic.make(litige="takers_fail").litige == "takers_fail"  # type: ignore[attr-defined]


@pytest.mark.parametrize("name", list(VARIANTS))
def test_each_flag_has_its_default_among_its_values(name: str) -> None:
    rules = VARIANTS[name]
    table = rules.flag_table()
    assert list(table)[:3] == ["table_direction", "reshuffle_each_deal", "target_score"]
    for flag_name, (default, values) in table.items():
        assert default in values or (flag_name == "target_score" and not values), flag_name
    assert rules.max_target() == 10 * table["target_score"][0]
    options = rules.make()
    assert options.changed() == {}
    assert options.applicable() == {f: default for f, (default, _) in table.items()}


def test_a_variant_is_one_module_and_its_registration(eight_cards: type[Options]) -> None:
    options = Options.make("eight_cards", made_bonus=20)
    assert options.changed() == {"made_bonus": 20}
    with pytest.raises(ValueError, match="made_bonus"):
        Options.make("eight_cards", made_bonus=10)
    with pytest.raises(ValueError, match="does not apply to eight_cards"):
        Options.make("eight_cards", litige="carry")
    for seed in range(6):
        match = Match(options, seed=seed)
        bots = [make_bot("easy" if seat & 1 else "normal", seed=seed) for seat in range(4)]
        while not match.is_over:
            deal = match.deal
            assert deal is not None
            if deal.phase == "auction":
                assert [h.bit_count() for h in deal.hands] == [8, 8, 8, 8]
                assert not deal.history or not is_contract(deal.history[-1][1])
            seat = match.current_player()
            assert seat is not None
            match.apply_action(bots[seat].choose(match.observation(seat)), seat)
        assert all(d.turned is None and not d.announcements for d in match.deals)
        again = replay(write_record(match))
        assert (again.totals, again.winner) == (match.totals, match.winner)
    summary = score_summary({"variant": "eight_cards", "contract": "H", "bidder_team": 1,
                             "card_points": [60, 102]})
    assert (summary.outcome, summary.score) == (MADE, (60, 102))
    with pytest.raises(ValueError, match="contract must be one of C, D, H, S"):
        score_summary({"variant": "eight_cards", "contract": "NT", "bidder_team": 0,
                       "card_points": [60, 70]})
    with pytest.raises(ValueError, match="no declarations score in eight_cards"):
        score_summary({"variant": "eight_cards", "contract": "H", "bidder_team": 0,
                       "card_points": [60, 102], "declarations": [["tierce"], []]})
    listed = asyncio.run(server.variants())
    assert listed["eight_cards"]["made_bonus"] == {"default": 0, "values": [0, 20]}
    assert listed["eight_cards"]["target_score"]["max"] == 3000


@pytest.mark.skipif(not NATIVE, reason="the compiled search is not built")
def test_the_exact_search_knows_no_variant(eight_cards: type[Options]) -> None:
    """The compiled search and the Python one agree under a variant neither has heard of."""
    rng = random.Random(3)
    options = Options.make("eight_cards")
    for _ in range(20):
        deck = list(range(32))
        rng.shuffle(deck)
        deal = Deal(options, rng.randrange(4), deck)
        deal.apply(BID + rng.choice(options.contracts))
        for _ in range(4 * rng.randrange(3, 5)):
            deal.push(rng.choice([c for c in range(32) if deal.legal_card_mask() >> c & 1]))
        args = (list(deal.hands), list(deal.trick), deal.leader)
        assert Solver(deal.contract, options, native=True).move_values(*args) == \
            Solver(deal.contract, options, native=False).move_values(*args)
