"""One deal: dealing from a deck, the auction, declarations, belot and the eight tricks.

The state is a handful of ints and short lists.  :meth:`Deal.apply` checks an action and
raises a specific :class:`~engine.errors.IllegalActionError`; :meth:`Deal.push` and
:meth:`Deal.pop` are the unchecked play path with undo, for search.
"""

from __future__ import annotations

from collections.abc import Sequence
from enum import StrEnum

from . import errors
from .actions import (
    ANNOUNCE,
    BELOT,
    BID,
    COINCHE,
    DOUBLE,
    END,
    PASS,
    POINT_BID,
    REDOUBLE,
    SURCOINCHE,
    Action,
    action_name,
    is_call,
    point_value,
)
from .cards import (
    ALL_TRUMPS,
    BEATS,
    BIT,
    NO_TRUMPS,
    POINTS,
    QUEEN,
    RANK_MASK,
    RUFFS,
    SUIT_MASK,
    Card,
    Contract,
    Mask,
    card_list,
    card_name,
    names,
)
from .declarations import COMBOS, DeclarationRules, decompositions, open_combos, resolve
from .options import Cuts, Options, Packet
from .scoring import LAST_TRICK, Tally


class Phase(StrEnum):
    """Where a deal is: bidding, playing its tricks, or over (scored or thrown in)."""

    AUCTION = "auction"
    PLAY = "play"
    OVER = "over"


AUCTION, PLAY, OVER = Phase.AUCTION, Phase.PLAY, Phase.OVER  # the hot paths' short names
_QUEENS = RANK_MASK[QUEEN]
_NO_CONTRACT = -1
_ALL_CARDS = list(range(32))
_SEATS = range(4)
# ``HISTORY_ENTRY[action][seat]`` is the history's ``(seat, action)``, made once: appending
# to a history allocates nothing, so a replay, which keeps every action it applies, sets
# the garbage collector off far less often.
HISTORY_ENTRY = tuple(tuple((seat, action) for seat in range(4))
                      for action in range(SURCOINCHE + 1))


def history_entry(seat: int, action: Action) -> tuple[int, Action]:
    """``(seat, action)`` as a history keeps it: the entry of :data:`HISTORY_ENTRY` where
    both are ints in range (the only pairs :meth:`Deal.play_cards` takes), else a pair of
    their own (left to the checked path, which says why it refuses them)."""
    if type(seat) is int and type(action) is int and 0 <= seat < 4 \
            and 0 <= action <= SURCOINCHE:
        return HISTORY_ENTRY[action][seat]
    return seat, action


def trick_state(
    trick: Sequence[Card], leader: int, contract: Contract,
    values: Sequence[int] | None = None,
) -> tuple[int, int, int]:
    """(winning seat, winning card, card points) of a trick so far (RULES §1.6);
    (-1, -1, 0) while it is empty.  ``values``: the cards' points in the contract where
    the variant values them its own way (``options.points[contract]``)."""
    beats = BEATS[contract]
    value = POINTS[contract] if values is None else values
    win_seat, win_card, points = -1, -1, 0
    for i, card in enumerate(trick):
        if i == 0 or BIT[card] & beats[win_card]:
            win_seat, win_card = (leader + i) % 4, card
        points += value[card]
    return win_seat, win_card, points


def legal_cards(
    hand: Mask, trick: Sequence[Card], win_card: Card, partner_winning: bool,
    contract: Contract, options: Options,
) -> Mask:
    """The cards of ``hand`` that may be played to ``trick`` (RULES §5.2, §5.3).

    ``win_card`` is the card currently winning the trick and ``partner_winning`` whether
    it belongs to the mover's partner; both are ignored when the trick is empty.
    """
    if not trick:
        return hand
    a, b, c = options.cuts[contract][(trick[0] >> 3) << 6 | win_card << 1
                                     | (not partner_winning)]
    return hand & a or hand & b or hand & c or hand


class Deal:
    """A deal from a given deck; ``dealer`` is a seat 0..3."""

    __slots__ = (
        "_beats",
        "_belot_cards",
        "_belot_follows",
        "_belot_plays",
        "_cuts",
        "_decl",
        "_legal",
        "_open",
        "_points",
        "_undo",
        "announced",
        "announcements",
        "belots",
        "bid",
        "contract",
        "dealer",
        "dealt",
        "deck",
        "declaration_rules",
        "declarer",
        "hands",
        "history",
        "leader",
        "multiplier",
        "options",
        "passes",
        "phase",
        "round",
        "to_move",
        "trick",
        "tricks",
        "turned",
        "win_card",
        "win_seat",
    )

    def __init__(self, options: Options, dealer: int, deck: Sequence[Card]) -> None:
        if sorted(deck) != _ALL_CARDS:
            raise ValueError("a deck must hold each of the 32 cards once")
        if dealer not in _SEATS:
            raise ValueError(f"dealer must be a seat 0..3, not {dealer!r}")
        self.options = options
        self.dealer = dealer
        self.deck = tuple(deck)
        self.hands = [0, 0, 0, 0]
        self._deal_packets(options.packets)
        self.dealt: list[Mask] = []  # the eight-card hands, once complete
        self.phase = AUCTION
        self.to_move = (dealer + 1) % 4
        self.contract = _NO_CONTRACT
        self.bid: Action = -1  # the point bid that stands (coinche), -1 while none
        self.declarer = -1
        self.multiplier = 1
        self.passes = 0
        self.round = 1
        self.turned: Card | None = (
            self.deck[options.cards_before_auction] if options.turns_card else None)
        self.history: list[tuple[int, Action]] = []
        self.trick: list[Card] = []
        self.leader = self.to_move
        self.win_seat = -1
        self.win_card = -1
        self.tricks: list[tuple[int, tuple[Card, ...]]] = []  # (leader, cards) of each trick
        self.announcements: list[tuple[int, int]] = []  # (seat, combo id) in order
        self.announced: list[frozenset[int]] = [frozenset()] * 4
        self.belots: list[tuple[int, int]] = []  # (seat, suit)
        self._decl: list[list[frozenset[int]] | None] = [None] * 4
        self._open: list[list[Action] | None] = [None] * 4  # _announceable(seat), once known
        self._belot_plays: list[int] = []  # how many cards had been played before each belot
        self._undo: list[tuple[int, Card]] = []  # (win_seat, win_card) each winner displaced
        self._legal = 0  # legal_card_mask() of this position, -1 until computed
        self._beats: tuple[Mask, ...] = ()  # BEATS, POINTS, cuts of the contract, once known
        self._cuts: tuple[Cuts, ...] = ()
        self._points: tuple[int, ...] = ()
        self._belot_cards = 0  # the cards that may form a belot in the contract
        self._belot_follows = False  # whether a belot card must lead or follow suit
        # How declarations score in this deal, None while none may be made (RULES §6.1).
        self.declaration_rules: DeclarationRules | None = None

    # ----------------------------------------------------------------- dealing

    def _deal_packets(self, packets: tuple[Packet, ...]) -> None:
        """Each seat its cards of ``packets`` (:attr:`Options.packets`), from the eldest."""
        hands, deck, seat = self.hands, self.deck, self.dealer
        for cards in packets:
            seat = (seat + 1) & 3
            if cards is not None:
                packet = 0
                for card in cards(deck):
                    packet |= BIT[card]
                hands[seat] |= packet

    def _complete(self) -> None:
        """After the auction: the turned card to the taker, the last packets (the taker's
        one card short for it), then play starts with the eldest."""
        options = self.options
        if self.turned is not None:
            self.hands[self.declarer] |= BIT[self.turned]
        self._deal_packets(options.last_packets[(self.declarer - self.dealer - 1) & 3])
        self.dealt = list(self.hands)
        self._legal = -1
        self._beats = options.beats[self.contract]
        self._cuts = options.cuts[self.contract]
        self._points = options.points[self.contract]
        self._belot_cards = options.belot_cards[self.contract]
        self._belot_follows = (self.contract == ALL_TRUMPS
                               and options.belot_follows_in_all_trumps)
        self.declaration_rules = options.declarations_in(self.contract)
        self.phase = PLAY
        self.to_move = self.leader = (self.dealer + 1) % 4

    # ----------------------------------------------------------------- queries

    @property
    def is_over(self) -> bool:
        return self.phase == OVER

    @property
    def thrown_in(self) -> bool:
        return self.phase == OVER and self.contract == _NO_CONTRACT

    def current_player(self) -> int | None:
        return None if self.phase == OVER else self.to_move

    def legal_card_mask(self) -> Mask:
        """The cards the player to move may play now; no card outside the play phase.
        :meth:`push` works it out for the next card; this, after anything else."""
        legal = self._legal
        if legal < 0:
            seat = self.to_move
            legal = self._legal = legal_cards(
                self.hands[seat], self.trick, self.win_card, (self.win_seat - seat) & 1 == 0,
                self.contract, self.options)
        return legal

    def legal_calls(self) -> list[Action]:
        """The calls open to the player to move (auction phase only), sorted."""
        return self.options.legal_calls(self)

    def out_of_turn(self) -> tuple[int, ...]:
        """The seats besides the one to move that may act now: in Coinche with
        ``coinche_timing = any_time``, the declarer's opponents who may coinche (their
        one action, :data:`~engine.actions.COINCHE`); empty otherwise."""
        if self.phase != AUCTION:
            return ()
        return self.options.out_of_turn(self)

    def actors(self) -> tuple[int, ...]:
        """Every seat that may act now: the one to move first; empty once over."""
        if self.phase == OVER:
            return ()
        return (self.to_move, *self.out_of_turn())

    def legal_actions_of(self, seat: int) -> list[Action]:
        """The actions open to ``seat`` now, whether or not it is its turn."""
        if seat == self.to_move:
            return self.legal_actions()
        return [COINCHE] if seat in self.out_of_turn() else []

    def legal_actions(self) -> list[Action]:
        """Every action open to the player to move, sorted; empty once the deal is over."""
        if self.phase == PLAY:
            mask = self.legal_card_mask()
            actions = card_list(mask)
            if self.hands[self.to_move] & self._belot_cards:
                belot = self._belot_mask() & mask
                if belot:
                    actions += [BELOT + c for c in card_list(belot)]
            if self.declaration_rules is not None and not self.tricks:
                actions += self._announceable(self.to_move)
            return actions
        if self.phase == AUCTION:
            return self.options.legal_calls(self)
        return []

    def _belot_mask(self) -> Mask:
        """The cards the mover may play announcing belot (RULES §6.5): the first of a K-Q
        pair of a trump suit; in all trumps only when leading or following suit, where
        the variant says so."""
        held = self.hands[self.to_move] & self._belot_cards
        queens = held & (held >> 1) & _QUEENS  # queens whose king is also held
        cards = queens | queens << 1
        if self._belot_follows and self.trick:
            cards &= SUIT_MASK[self.trick[0] >> 3]
        return cards

    def _announceable(self, seat: int) -> list[Action]:
        """The announcements open to ``seat``, kept until it makes one."""
        actions = self._open[seat]
        if actions is None:
            full_sets = self._decl[seat]
            if full_sets is None:
                rules = self.declaration_rules
                assert rules is not None
                full_sets = self._decl[seat] = decompositions(self.dealt[seat], rules)
            combos = open_combos(full_sets, self.announced[seat])
            actions = self._open[seat] = [ANNOUNCE + i for i in combos]
        return actions

    # ----------------------------------------------------------------- checked apply

    def apply(self, action: Action, seat: int | None = None) -> None:
        """Apply ``action`` for the player to move, or raise why it is illegal."""
        mover = self.to_move
        phase = self.phase
        if seat is not None and seat != mover and phase != OVER:
            if action == COINCHE and seat in self.out_of_turn():
                self._call(action, seat)  # a coinche out of turn (COINCHE.md §4.3)
                return
            raise errors.NotYourTurnError(f"seat {seat} may not act: it is seat {mover}'s turn")
        if phase == PLAY and type(action) is int and 0 <= action < BID:  # a card: the hot path
            card = action & 31
            if not self.legal_card_mask() >> card & 1:
                raise self._bad_card(card)
            if action >= BELOT and not self._belot_mask() >> card & 1:
                raise errors.IllegalBelotError(
                    f"seat {mover} cannot announce belot with {card_name(card)}")
            self.history.append(HISTORY_ENTRY[action][mover])
            self.push(action)
            return
        if type(action) is not int or not (0 <= action <= REDOUBLE or ANNOUNCE <= action < END
                                           or POINT_BID <= action <= SURCOINCHE):
            raise errors.UnknownActionError(f"not an action: {action!r}")
        if phase == AUCTION:
            if action not in self.options.legal_calls(self):
                raise self._bad_call(action)
            self._call(action, mover)
        elif phase == OVER:
            raise errors.GameOverError("the deal is over")
        elif ANNOUNCE <= action < END:
            if self.declaration_rules is None or self.tricks:
                raise errors.IllegalAnnounceError(
                    f"seat {mover} cannot announce now: declarations are made in the first "
                    "trick of a bulgarian suit or all-trumps deal")
            combo = action - ANNOUNCE
            if action not in self._announceable(mover):
                raise errors.IllegalAnnounceError(
                    f"seat {mover} cannot announce {COMBOS[combo].text()}")
            self._announce(mover, combo)
        else:
            raise errors.WrongPhaseError(
                f"seat {mover} cannot {_describe(action)} now: the cards are being played")

    def play_cards(self, actions: Sequence[tuple[int, Action]], start: int, stop: int) -> int:
        """Play ``actions[start:stop]``, ``(seat, action)`` pairs, for as long as each is a bare
        card that the seat to move may play, checked and played as :meth:`apply` checks
        and plays one (its bit in the legal mask, then onto the history and
        :meth:`push`); the index of the first one left (``stop`` if none).  The replays' loop
        (:meth:`Match.apply_actions <engine.match.Match.apply_actions>`, which scores a
        deal this ends): anything else is left to :meth:`apply`, which says why it is
        refused, if it is.  A pair is taken only if it is the history's own entry
        (:func:`history_entry`), so that its seat and card are ints in range, never True
        or 1.0; the legal mask each :meth:`push` leaves is read, not asked for."""
        if self.phase is not PLAY:
            return start
        stop = min(stop, start + 32 - 4 * len(self.tricks) - len(self.trick))
        entries, history, push = HISTORY_ENTRY, self.history, self.push
        self.legal_card_mask()  # known from here on
        j = start
        try:
            for j in range(start, stop):
                pair = actions[j]
                seat, card = pair
                # a card with belot or any other action (32 and up) has no bit in the mask
                if pair is not entries[card][seat] or seat is not self.to_move \
                        or not self._legal >> card & 1:
                    return j
                history.append(pair)
                push(card)
        except (TypeError, ValueError, IndexError):  # no pair, or no entry's seat and action
            return j
        return max(start, stop)

    def _bad_call(self, action: Action) -> errors.IllegalActionError:
        if not is_call(action):
            return errors.WrongPhaseError(
                f"seat {self.to_move} cannot {_describe(action)} now: the auction is on")
        legal = " ".join(action_name(a) for a in self.legal_calls())
        return errors.IllegalBidError(
            f"seat {self.to_move} cannot call {action_name(action)} (may call {legal})")

    def _bad_card(self, card: Card) -> errors.IllegalActionError:
        mover, legal = self.to_move, self.legal_card_mask()
        if not self.hands[mover] >> card & 1:
            return errors.CardNotHeldError(f"seat {mover} does not hold {card_name(card)}")
        has = names(legal)
        led = self.trick[0] >> 3
        if self.hands[mover] & SUIT_MASK[led]:
            if card >> 3 != led:
                return errors.MustFollowSuitError(f"seat {mover} must follow suit (has {has})")
            return errors.MustBeatError(
                f"seat {mover} must beat {card_name(self.win_card)} (has {has})")
        if (1 << self.win_card) & RUFFS[self.contract] and legal & ~RUFFS[self.contract] == 0:
            if legal & self.options.beats[self.contract][self.win_card]:
                return errors.MustOvertrumpError(f"seat {mover} must over-trump (has {has})")
            return errors.MustTrumpError(f"seat {mover} must play a trump (has {has})")
        if (1 << card) & RUFFS[self.contract]:
            return errors.MustOvertrumpError(
                f"seat {mover} may not under-trump its partner's {card_name(self.win_card)} "
                f"(has {has})")
        return errors.MustTrumpError(f"seat {mover} must trump (has {has})")

    # ----------------------------------------------------------------- auction

    def _call(self, action: Action, seat: int) -> None:
        """``seat``'s call: the seat to move's, or a coinche out of turn, after which the
        turn passes to the coincher's left (COINCHE.md §4.3)."""
        self.history.append(HISTORY_ENTRY[action][seat])
        if action == PASS:
            self.passes += 1
        elif action in (DOUBLE, COINCHE):
            self.multiplier, self.passes = 2, 0
        elif action == REDOUBLE:
            self.multiplier, self.passes = 4, 0
        elif action == SURCOINCHE:  # ends the auction at once
            self.multiplier = self.options.redouble_multiplier()
            self._complete()
            return
        elif action >= POINT_BID:
            self.bid, self.contract = action, (action - POINT_BID) % 6
            self.declarer, self.multiplier, self.passes = seat, 1, 0
        else:
            self.contract, self.declarer, self.multiplier, self.passes = action - BID, seat, 1, 0
        self.to_move = (seat + 1) % 4
        if action != PASS and self.options.bid_ends_auction:
            self._complete()
        elif self.contract == _NO_CONTRACT:
            if self.passes == 4:
                if self.round == self.options.auction_rounds:
                    self.phase = OVER
                else:
                    self.round, self.passes = self.round + 1, 0
        elif self.passes == 3:
            self._complete()

    # ----------------------------------------------------------------- play

    def _announce(self, seat: int, combo: int) -> None:
        self.history.append(HISTORY_ENTRY[ANNOUNCE + combo][seat])
        self.announcements.append((seat, combo))
        self.announced[seat] = self.announced[seat] | {combo}
        self._open[seat] = None

    def push(self, action: Action) -> None:
        """Play a card (``BELOT + card`` to announce belot with it) without any check, and
        work out the legal cards of the next one (:meth:`legal_card_mask`).

        It keeps only what :meth:`pop` cannot read off the trick and the tricks: the winner
        a card displaces (and where each belot was).  The points and winners of the tricks
        are read off :attr:`tricks` when asked for (:attr:`points`, :attr:`tricks_won`)."""
        seat = self.to_move
        card = action & 31
        bit = BIT[card]
        hands = self.hands
        hands[seat] ^= bit
        trick = self.trick
        if action >= BELOT:
            self.belots.append((seat, card >> 3))
            self._belot_plays.append(4 * len(self.tricks) + len(trick))
        if not trick or self._beats[self.win_card] & bit:
            self._undo.append((self.win_seat, self.win_card))
            self.win_seat = win_seat = seat
            self.win_card = card
        else:
            win_seat = self.win_seat
        trick.append(card)
        if len(trick) < 4:
            seat = self.to_move = (seat + 1) & 3
            hand = hands[seat]  # legal_cards, its cuts looked up from the deal's fields
            a, b, c = self._cuts[(trick[0] >> 3) << 6 | self.win_card << 1 | (win_seat ^ seat) & 1]
            self._legal = hand & a or hand & b or hand & c or hand
            return
        tricks = self.tricks
        tricks.append((self.leader, tuple(trick)))
        if len(tricks) == 8:
            self.phase = OVER
        self.trick = []
        self.leader = self.to_move = win_seat
        self._legal = hands[win_seat]

    def pop(self) -> None:
        """Undo the last :meth:`push`: its card is the trick's last, its seat the one that
        many places after the leader, and the winner before it, where it was that card,
        the one it displaced."""
        trick = self.trick
        if trick:
            card = trick.pop()
        else:
            self.leader, (first, second, third, card) = self.tricks.pop()
            trick = self.trick = [first, second, third]
            self.phase = PLAY
        seat = self.to_move = (self.leader + len(trick)) & 3
        self.hands[seat] |= BIT[card]
        self._legal = -1
        if card == self.win_card:
            self.win_seat, self.win_card = self._undo.pop()
        plays = self._belot_plays
        if plays and plays[-1] == 4 * len(self.tricks) + len(trick):
            plays.pop()
            self.belots.pop()

    # ----------------------------------------------------------------- results

    def _taken(self) -> tuple[list[int], list[int]]:
        """Card points (the last trick's 10 included) and tricks per team so far: each
        trick goes to the seat that leads the next one."""
        points, won = [0, 0], [0, 0]
        tricks = self.tricks
        value = self._points
        team = self.leader & 1  # the last trick's winner leads now; read backwards
        for leader, (a, b, c, d) in reversed(tricks):
            points[team] += value[a] + value[b] + value[c] + value[d]
            won[team] += 1
            team = leader & 1
        if len(tricks) == 8:
            points[self.leader & 1] += LAST_TRICK
        return points, won

    @property
    def points(self) -> list[int]:
        """Card points per team of the tricks taken so far, the last trick's 10 included."""
        return self._taken()[0]

    @property
    def tricks_won(self) -> list[int]:
        """Tricks taken so far per team."""
        return self._taken()[1]

    @property
    def trick_points(self) -> int:
        """Card points of the trick on the table."""
        return sum(map(self._points.__getitem__, self.trick))

    def scoring_declarations(self) -> tuple[list[int], list[list[int]]]:
        """Points per team and the announced combination ids that score (RULES §6.4)."""
        rules = self.declaration_rules
        if rules is None:
            return [0, 0], [[], []]
        trump = self.contract if self.contract < NO_TRUMPS else None
        return resolve(self.announcements, trump, rules)

    @property
    def value(self) -> int:
        """The standing point bid's value (80..160, capot 250, générale 500); 0 without."""
        return point_value(self.bid) if self.bid >= 0 else 0

    def tally(self) -> Tally:
        """The raw facts the scoring needs; only for a deal played to the end."""
        assert self.phase == OVER and self.contract != _NO_CONTRACT
        card_points, won = self._taken()
        valat = 0 if won[1] == 0 else 1 if won[0] == 0 else None
        winners = [leader for leader, _ in self.tricks[1:]] + [self.leader]
        points, _ = self.scoring_declarations()
        belots = [0, 0]
        for seat, _suit in self.belots:
            belots[seat & 1] += 1
        return Tally(
            contract=self.contract,
            bidder=self.declarer,
            multiplier=self.multiplier,
            card_points=(card_points[0], card_points[1]),
            declarations=(points[0], points[1]),
            belots=(belots[0], belots[1]),
            valat=valat,
            value=self.value,
            solo=winners.count(self.declarer) == 8,
        )

    def gathered(self) -> list[Card]:
        """The cards picked up after the deal (RULES §3.1): tricks in order, else the deck."""
        if not self.tricks:
            return list(self.deck)
        return [card for _, cards in self.tricks for card in cards]

    def copy(self) -> Deal:
        other = Deal.__new__(Deal)
        for name in Deal.__slots__:
            value = getattr(self, name)
            setattr(other, name, list(value) if isinstance(value, list) else value)
        return other


def _describe(action: Action) -> str:
    name = action_name(action)
    if is_call(action):
        return "call " + name
    return name if name.startswith("announce") else "play " + name
