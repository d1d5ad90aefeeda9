"""What hard infers from the cards played, on hand-made positions."""

from __future__ import annotations

import random

import pytest

from ai import inference, likelihood
from ai.hard import HardBot
from ai.inference import Knowledge, infer, sample
from engine.actions import BID, PASS
from engine.cards import JACK, NINE, RANK_MASK, RANKS, SUIT_MASK, Mask, parse_card
from engine.match import Match
from engine.observation import Observation
from engine.options import Options
from tests.positions import carre_played, position

HEARTS, SPADES = 2, 3


def never_dealt(knowledge: Knowledge, seat: int, forbidden: Mask) -> None:
    assert knowledge.excluded[seat] & forbidden & knowledge.hidden == forbidden & knowledge.hidden
    rng = random.Random(1)
    for _ in range(300):
        hands = sample(knowledge, rng)
        assert not hands[seat] & forbidden
        assert sum(h.bit_count() for h in hands) == knowledge.hidden.bit_count()
        assert hands[seat].bit_count() == knowledge.sizes[seat]


def test_showing_out_and_not_overtrumping_exclude_cards_from_samples() -> None:
    # Hearts by seat 0.  Seat 0 leads AS; seat 1 shows out and ruffs 9H; seat 2 shows out
    # and, unable to beat the 9H with its 7H 8H QH, discards AD (allowed in bulgarian).
    hands = ["AS TS 7S JH 8D 9D AC 7C", "9H TC 8C JD QD KD 9C QC",
             "7H 8H QH AD 7D KC JC TD", "KS QS JS 9S 8S AH TH KH"]
    knowledge = infer(position(hands, 0, HEARTS, "AS 9H AD", seat=3))
    never_dealt(knowledge, 1, SUIT_MASK[SPADES])
    never_dealt(knowledge, 2, SUIT_MASK[SPADES])
    never_dealt(knowledge, 2, 1 << parse_card("JH"))  # the only trump above 9H
    assert not knowledge.excluded[2] & 1 << parse_card("AH")  # lower trumps stay possible


def test_a_seat_that_discarded_when_obliged_to_trump_has_no_trump() -> None:
    # Seat 1 is void in spades and discards 9D while seat 0, an opponent, wins with a
    # plain card: in bulgarian it would have had to trump.
    hands = ["AS TS 7S JH 8D AC 7C 9H", "TC 8C JD QD KD 9C QC 9D",
             "7H 8H QH AD 7D KC JC TD", "KS QS JS 9S 8S AH TH KH"]
    knowledge = infer(position(hands, 0, HEARTS, "AS 9D", seat=2))
    never_dealt(knowledge, 1, SUIT_MASK[HEARTS] | SUIT_MASK[SPADES])


def test_classic_compulsory_under_trump_shows_a_discarder_has_no_trump() -> None:
    # Classic, seat 1 takes hearts (turned 8H).  Seat 0 leads AS, seat 1 ruffs JH, seat 2
    # discards AD: with any trump it would have had to under-trump.
    hands = ["AS TS 7S 9H QH 7H 8D 9D", "JH TC 8C JD QD 8H KD 9C",
             "AD 7D TD AC 7C QC KC JC", "KS QS JS 9S 8S AH TH KH"]
    obs = position(hands, 1, HEARTS, "AS JH AD", seat=3, variant="classic")
    knowledge = infer(obs)
    never_dealt(knowledge, 2, SUIT_MASK[HEARTS] | SUIT_MASK[SPADES])
    assert knowledge.located[1] == 1 << parse_card("8H")  # the turned card went to the taker
    never_dealt(knowledge, 0, 1 << parse_card("8H"))


def test_a_belot_locates_the_other_card_of_the_pair() -> None:
    hands = ["KH QH AS TS 7S 8D AC 7C", "9H TC 8C JD QD KD 9C QC",
             "7H 8H JH AD 7D KC JC TD", "KS QS JS 9S 8S AH TH 9D"]
    knowledge = infer(position(hands, 0, HEARTS, "KH+belot", seat=3))
    assert knowledge.located[0] == 1 << parse_card("QH")
    never_dealt(knowledge, 1, 1 << parse_card("QH"))
    never_dealt(knowledge, 2, 1 << parse_card("QH"))


def carre_position(rank: str) -> tuple[Observation, Mask]:
    """Seat 2's view after seat 1 announced its carré of ``rank`` and played one of it,
    and the three cards of the carré still unplayed."""
    obs = carre_played(rank, HEARTS).observation(2)
    assert obs.announcements[0].cards is None  # seat 2 hears the carré, sees no card of it
    return obs, RANK_MASK[RANKS.index(rank)] & ~(1 << parse_card(rank + "S"))


@pytest.mark.parametrize("rank", ["9", "J"])
def test_an_opponents_carre_locates_its_cards(rank: str) -> None:
    obs, unplayed = carre_position(rank)
    knowledge = infer(obs)
    assert knowledge.located[1] == unplayed
    for seat in (0, 3):
        never_dealt(knowledge, seat, unplayed)


@pytest.mark.parametrize("rank", ["9", "J"])
def test_hard_samples_an_opponents_carre_in_its_hand(
    rank: str, monkeypatch: pytest.MonkeyPatch,
) -> None:
    obs, unplayed = carre_position(rank)
    sampled: list[list[Mask]] = []

    def recorded(knowledge: Knowledge, rng: random.Random) -> list[Mask]:
        hands = sample(knowledge, rng)
        sampled.append(list(hands))
        return hands

    monkeypatch.setattr(likelihood, "sample", recorded)  # where hard draws its deals
    assert HardBot(seed=1, budget_s=60).choose(obs) in obs.legal_actions
    assert sampled and all(hands[1] & unplayed == unplayed for hands in sampled)


def test_a_classic_pass_makes_the_declined_suits_jack_and_nine_less_likely() -> None:
    """A first-round pass declines the turned suit, a second-round pass the others: their
    jack and nine weigh PASSED_TOP_WEIGHT for that seat; the taker's own suit is still
    read as strength, and bulgarian's passes read nothing."""
    match = Match(Options.make("classic"), seed=3)
    deal = match.deal
    assert deal is not None and deal.turned is not None
    turned = deal.turned >> 3
    first = deal.to_move
    for _ in range(5):  # four passes in the first round, one in the second
        match.apply_action(PASS)
    other = (turned + 1) % 4
    taker = deal.to_move
    match.apply_action(BID + other)
    weights = infer(match.observation((taker + 1) % 4)).weights
    for seat in range(4):
        declined = {turned} | ({s for s in range(4) if s != turned} if seat == first
                               else set())
        for card in range(32):
            if seat == taker and card >> 3 == other:
                expected = inference.NAMED_TOP_WEIGHT if card & 7 in (JACK, NINE) \
                    else inference.NAMED_WEIGHT
            elif card >> 3 in declined and card & 7 in (JACK, NINE):
                expected = inference.PASSED_TOP_WEIGHT
            else:
                expected = 1.0
            assert weights[seat][card] == expected, (seat, card)
    bulgarian = Match(Options.make("bulgarian"), seed=3)
    for _ in range(2):
        bulgarian.apply_action(PASS)
    assert set(infer(bulgarian.observation(0)).weights[1]) == {1.0}
