"""normal's card play and hand value on hand-made positions."""

from __future__ import annotations

from ai.bidding import VOID_VALUE, hand_value
from ai.normal import NormalBot
from ai.view import view_of
from engine.cards import NO_TRUMPS, card_name, mask_of
from engine.options import Options
from tests.positions import cards, position

CLUBS, HEARTS = 0, 2

# Seat 0 leads KC, seat 1 takes with AC, seat 2 follows 8C and seat 3 shows out of clubs
# (7D, free to discard under its winning partner).  Seat 1 leads 7S, seat 0 wins with AS
# and leads TC, the top club left; seat 1 follows 7C and seat 2, out of clubs, is to play
# holding JS TD 8D 9D 7H 8H.
HANDS = ["KC TC AS JH 9H AH TH KH", "AC 7C 9C JC QC 7S QS KS",
         "8C 8S JS TD 8D 9D 7H 8H", "7D 9S QH TS JD QD KD AD"]
PLAYS = "KC AC 8C 7D 7S 8S 9S AS TC 7C"


def seat2_card(contract: int) -> str:
    obs = position(HANDS, 0, contract, PLAYS, 2)
    action = NormalBot().choose(obs)
    assert action in obs.legal_actions
    return card_name(action)


def test_the_view_records_who_showed_out_of_which_suit() -> None:
    view = view_of(position(HANDS, 0, NO_TRUMPS, PLAYS, 2))
    assert view.voids == (0, 0, 0, 1 << CLUBS)


def test_normal_feeds_its_fattest_card_to_a_partner_whose_card_holds() -> None:
    # No trumps: nobody can beat the top club, so the ten goes on it.
    assert seat2_card(NO_TRUMPS) == "TD"


def test_normal_feeds_nothing_when_the_last_opponent_may_ruff() -> None:
    # Hearts: seat 3 is out of clubs and trumps are still out, so it plays low.
    assert seat2_card(HEARTS) == "8D"


def test_a_side_void_adds_to_a_suit_hand_with_two_trumps() -> None:
    options = Options.make("bulgarian")
    no_void = mask_of(cards("JH 9H AS 7C 7D"))
    void = mask_of(cards("JH 9H AS 7C 8C"))  # no diamond; the 8C adds nothing by itself
    assert hand_value(void, HEARTS, options) - hand_value(no_void, HEARTS, options) \
        == VOID_VALUE
    one_trump = mask_of(cards("JH AS 7C 8C 7S"))  # void in diamonds, one trump: no bonus
    assert hand_value(one_trump, HEARTS, options) \
        == hand_value(mask_of(cards("JH AS 7C 7D 7S")), HEARTS, options)
