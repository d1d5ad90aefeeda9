"""The rules reference: RULES.md written plainly on card *names* and lists (§1.3-§1.6
trick winner and card values, §3 dealing, §4 auction, §5.2/§5.3 legal cards, §6
declarations and belot, §7/§8 scoring and the end of a match), never calling the engine
function it checks (it reads the house-rule flags off the engine's ``Options``); and a
match record (RECORD.md) replayed on it.

The property tests (tests/test_properties.py) check the engine against it, and
bench/engine_speed.py times the engine's record replay against :func:`reference_report`,
the straightforward implementation of the same rules.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from engine.actions import Action
from engine.deal import Deal
from engine.declarations import COMBOS
from engine.options import Options
from engine.variants import Bulgarian, Classic

RANKS = "789TJQKA"
SUITS = "CDHS"
CONTRACTS = ("C", "D", "H", "S", "NT", "AT")
TRUMP_ORDER = "78QKTA9J"  # weakest -> strongest (§1.3)
PLAIN_ORDER = "789JQKTA"
TRUMP_VALUE = {"J": 20, "9": 14, "A": 11, "T": 10, "K": 4, "Q": 3, "8": 0, "7": 0}
PLAIN_VALUE = {"A": 11, "T": 10, "K": 4, "Q": 3, "J": 2, "9": 0, "8": 0, "7": 0}
CARRE_ORDER = "QKTA9J"  # weakest -> strongest (§1.5)
CARRE_VALUE = {"J": 200, "9": 150, "A": 100, "T": 100, "K": 100, "Q": 100}
DEAL_TOTAL = {"NT": 130, "AT": 258}  # card points + last trick; suits 162 (§1.4)
CALL_NAMES = {64: "C", 65: "D", 66: "H", 67: "S", 68: "NT", 69: "AT",
              70: "pass", 71: "double", 72: "redouble"}


def name(card: int) -> str:
    """RULES notation of the engine's card int (suit * 8 + rank, engine_api.md)."""
    return RANKS[card % 8] + SUITS[card // 8]


def names_of(mask: int) -> list[str]:
    return [name(c) for c in range(32) if mask >> c & 1]


def is_trump(card: str, contract: str) -> bool:
    return contract == "AT" or card[1] == contract


def strength(card: str, contract: str) -> int:
    return (TRUMP_ORDER if is_trump(card, contract) else PLAIN_ORDER).index(card[0])


def value(card: str, contract: str) -> int:
    return (TRUMP_VALUE if is_trump(card, contract) else PLAIN_VALUE)[card[0]]


def winner(trick: list[str], contract: str) -> int:
    """Index in ``trick`` of the card that wins (so far), §1.6."""
    best = 0
    for i in range(1, len(trick)):
        c, b = trick[i], trick[best]
        ruffs = contract in SUITS and c[1] == contract and b[1] != contract
        if ruffs or (c[1] == b[1] and strength(c, contract) > strength(b, contract)):
            best = i
    return best


def ref_legal_cards(hand: list[str], trick: list[str], contract: str, opts: Options) -> set[str]:
    """RULES §5.2 (bulgarian) / §5.3 (classic, with its two flags)."""
    if not trick:
        return set(hand)
    led = trick[0][1]
    follow = [c for c in hand if c[1] == led]
    if follow:
        if contract == "AT" or led == contract:
            top = max((c for c in trick if c[1] == led), key=lambda c: strength(c, contract))
            higher = [c for c in follow if strength(c, contract) > strength(top, contract)]
            return set(higher or follow)
        return set(follow)
    if contract in ("NT", "AT"):
        return set(hand)
    trumps = [c for c in hand if c[1] == contract]
    if not trumps:
        return set(hand)
    partner_winning = (len(trick) - winner(trick, contract)) % 2 == 0
    on_table = [c for c in trick if c[1] == contract]
    top_t = max(on_table, key=lambda c: strength(c, contract)) if on_table else None
    over = [c for c in trumps
            if top_t is not None and strength(c, contract) > strength(top_t, contract)]
    if not isinstance(opts, Classic):
        if partner_winning:
            return set(hand)
        if top_t is not None:
            return set(over or hand)
        return set(trumps)
    if partner_winning:
        if top_t is None or not opts.partner_ruff_no_undertrump:
            return set(hand)
        allowed = [c for c in hand if c[1] != contract] + over
        return set(allowed or hand)
    if top_t is not None:
        if over:
            return set(over)
        return set(trumps if opts.undertrump_on_opponent_ruff == "compulsory" else hand)
    return set(trumps)


def ref_hands(deck: list[str], dealer: int, classic: bool, taker: int | None) -> list[set[str]]:
    """The eight-card hands dealt from ``deck`` (§3.2, §3.3)."""
    order = [(dealer + 1 + i) % 4 for i in range(4)]
    hands: list[set[str]] = [set(), set(), set(), set()]
    pos = 0
    for size in (3, 2):
        for seat in order:
            hands[seat] |= set(deck[pos:pos + size])
            pos += size
    if not classic:
        for seat in order:
            hands[seat] |= set(deck[pos:pos + 3])
            pos += 3
        return hands
    assert taker is not None
    hands[taker].add(deck[20])
    pos = 21
    for seat in order:
        size = 2 if seat == taker else 3
        hands[seat] |= set(deck[pos:pos + size])
        pos += size
    return hands


@dataclass
class Auction:
    contract: str | None
    declarer: int | None
    multiplier: int
    calls: list[tuple[int, str]]


def ref_auction(history: Iterable[tuple[int, Action]]) -> Auction:
    """The auction of an engine deal's history."""
    return auction_of([(s, CALL_NAMES[a]) for s, a in history if a in CALL_NAMES])


def auction_of(calls: list[tuple[int, str]]) -> Auction:
    """Where an auction stands after ``calls`` (seat, call name)."""
    contract: str | None = None
    declarer: int | None = None
    multiplier = 1
    for seat, call in calls:
        if call in CONTRACTS:
            contract, declarer, multiplier = call, seat, 1
        elif call == "double":
            multiplier = 2
        elif call == "redouble":
            multiplier = 4
    return Auction(contract, declarer, multiplier, calls)


def ref_legal_calls(deal: Deal) -> set[str]:
    """§4.1 / §4.2: the calls open to the player to move."""
    turned = None if deal.turned is None else name(deal.turned)
    return legal_calls_after(ref_auction(deal.history), deal.to_move, turned)


def legal_calls_after(auction: Auction, me: int, turned: str | None) -> set[str]:
    """The calls open to seat ``me`` after ``auction``; ``turned``: classic's turned card."""
    if turned is not None:
        u = turned[1]
        if len(auction.calls) < 4:
            return {u, "pass"}
        return {s for s in SUITS if s != u} | {"pass"}
    calls = {"pass"}
    k = auction.contract
    calls |= {x for x in CONTRACTS if k is None or CONTRACTS.index(x) > CONTRACTS.index(k)}
    if k is not None:
        assert auction.declarer is not None
        same_team = (me - auction.declarer) % 2 == 0
        if auction.multiplier == 1 and not same_team:
            calls.add("double")
        if auction.multiplier == 2 and same_team:
            calls.add("redouble")
    return calls


def combo_cards(combo_id: int) -> frozenset[str]:
    return frozenset(names_of(COMBOS[combo_id].mask))


def runs(cards: Iterable[str]) -> list[frozenset[str]]:
    """Maximal runs of three or more in natural order, per suit (§6.2)."""
    cards = set(cards)
    found = []
    for suit in SUITS:
        run: list[str] = []
        for rank in RANKS + "-":
            if rank + suit in cards:
                run.append(rank + suit)
                continue
            if len(run) >= 3:
                found.append(frozenset(run))
            run = []
    return found


def ref_declaration_sets(hand: set[str], opts: Bulgarian) -> list[frozenset[frozenset[str]]]:
    """Every full declaration of a hand (§6.2 and the ``overlap_policy`` flag)."""
    carres = [r for r in CARRE_ORDER if all(r + s in hand for s in SUITS)]
    if opts.overlap_policy == "carre_first":
        kept_choices = [carres]
    else:
        kept_choices = [[r for i, r in enumerate(carres) if bits >> i & 1]
                        for bits in range(1 << len(carres))]
    sets = []
    for kept in kept_choices:
        rest = {c for c in hand if c[0] not in kept}
        sets.append(frozenset([frozenset(r + s for s in SUITS) for r in kept] + runs(rest)))
    return sets


def ref_announceable(hand: set[str], announced: set[frozenset[str]],
                     opts: Bulgarian) -> set[frozenset[str]]:
    out: set[frozenset[str]] = set()
    for full in ref_declaration_sets(hand, opts):
        if announced <= full:
            out |= full - announced
    return out


def is_carre(cards: frozenset[str]) -> bool:
    return len({c[0] for c in cards}) == 1


def combo_value(cards: frozenset[str], opts: Bulgarian) -> int:
    if is_carre(cards):
        return CARRE_VALUE[next(iter(cards))[0]]
    n = len(cards)
    if n == 8 and opts.long_run == "quint_plus_tierce_for_8":
        return 120
    return {3: 20, 4: 50}.get(n, 100)


def seq_key(cards: frozenset[str]) -> tuple[int, int]:
    return len(cards), max(RANKS.index(c[0]) for c in cards)


def ref_declarations(
    announced: list[tuple[int, frozenset[str]]], contract: str, opts: Bulgarian
) -> tuple[int, int]:
    """Points of the declarations that score, per team (§6.4 and its two flags)."""
    trump = contract if contract in SUITS else None

    def key(cards: frozenset[str]) -> tuple[int, ...]:
        if opts.declaration_resolution == "single":
            if is_carre(cards):
                return combo_value(cards, opts), 1, CARRE_ORDER.index(next(iter(cards))[0])
            return (combo_value(cards, opts), 0, *seq_key(cards))
        if is_carre(cards):
            return (CARRE_ORDER.index(next(iter(cards))[0]),)
        return seq_key(cards)

    if opts.declaration_resolution == "single":
        groups = [announced]
    else:
        groups = [[a for a in announced if not is_carre(a[1])],
                  [a for a in announced if is_carre(a[1])]]
    points = [0, 0]
    for group in groups:
        best = [max((key(c) for s, c in group if s % 2 == t), default=None) for t in (0, 1)]
        if best[0] is None and best[1] is None:
            continue
        if best[0] is None:
            scorer = 1
        elif best[1] is None:
            scorer = 0
        elif best[0] != best[1]:
            scorer = 0 if best[0] > best[1] else 1
        else:  # equal best sequences
            if opts.equal_sequences == "cancel":
                continue
            tied = [(s, c) for s, c in group if key(c) == best[0]]
            in_trump = {s % 2 for s, c in tied if trump is not None and next(iter(c))[1] == trump}
            scorer = in_trump.pop() if len(in_trump) == 1 else tied[0][0] % 2
        points[scorer] += sum(combo_value(c, opts) for s, c in group if s % 2 == scorer)
    return points[0], points[1]


def r_tens(x: int, contract: str, low: bool) -> int:
    """§7.2 ``R``; ``low`` is the LOW role."""
    q, r = divmod(x, 10)
    if contract == "NT":
        up = r >= 5
    elif contract == "AT":
        up = r >= 5 or (r == 4 and low)
    else:
        up = r >= 7 or (r == 6 and low)
    return q + (1 if up else 0)


def r_total(t: int) -> int:
    return (t + 5) // 10


@dataclass
class Expected:
    outcome: str
    score: tuple[int, int]
    hanging: int


def ref_score_bulgarian(
    contract: str, bidder_team: int, m: int, cp: tuple[int, int], decl: tuple[int, int],
    belots: tuple[int, int], valat: int | None, pool: int, opts: Bulgarian,
) -> Expected:
    """§7.1-§7.7; with ``valat_multiplied = false`` a valat deal is scored undoubled."""
    raw = [cp[t] * (2 if contract == "NT" else 1) + decl[t] + 20 * belots[t]
           + (90 if valat == t else 0) for t in (0, 1)]
    total = raw[0] + raw[1]
    if valat is not None and not opts.valat_multiplied:
        m = 1
    b, d = bidder_team, 1 - bidder_team
    s = [0, 0]
    if m == 1:
        if raw[b] > raw[d]:
            s[b] = r_tens(raw[b], contract, False) + pool
            s[d] = r_tens(raw[d], contract, True)
            return Expected("made", (s[0], s[1]), 0)
        if raw[b] < raw[d]:
            s[d] = r_total(total) + pool
            return Expected("failed", (s[0], s[1]), 0)
        s[d] = r_tens(raw[d], contract, False)
        return Expected("hanging", (s[0], s[1]), pool + r_tens(raw[b], contract, True))
    if raw[0] == raw[1]:
        return Expected("hanging", (0, 0), pool + r_total(total) * m)
    w = 0 if raw[0] > raw[1] else 1
    s[w] = r_total(total) * m + pool
    return Expected("made" if w == b else "failed", (s[0], s[1]), 0)


def ref_score_classic(
    bidder_team: int, cp: tuple[int, int], belots: tuple[int, int], valat: int | None,
    pool: int, opts: Classic,
) -> Expected:
    """§8.1-§8.2 and the flags ``belote_counts_for_contract`` and ``litige``."""
    cs = [(252 if valat == t else cp[t]) for t in (0, 1)]
    bel = [20 * belots[0], 20 * belots[1]]
    tot = [cs[0] + bel[0], cs[1] + bel[1]]
    judged = tot if opts.belote_counts_for_contract else cs
    b, d = bidder_team, 1 - bidder_team
    s = [0, 0]
    if judged[b] == judged[d] and opts.litige == "carry":
        s[b], s[d] = bel[b], tot[d]
        return Expected("hanging", (s[0], s[1]), pool + cs[b])
    made = judged[b] > judged[d] or (judged[b] == judged[d] and opts.litige == "takers_make")
    if made:
        s[b], s[d] = tot[b] + pool, tot[d]
        return Expected("made", (s[0], s[1]), 0)
    s[b] = bel[b]
    s[d] = (252 if valat == d else 162) + bel[d] + pool
    return Expected("failed", (s[0], s[1]), 0)


def ref_match_step(
    totals: list[int], target: int, outcome: str, score: tuple[int, int],
    valat: int | None, opts: Options,
) -> tuple[int | None, int]:
    """§7.8 / §8.3 after one deal, whose ``score`` is added to ``totals``: (the winning
    team or None, the target from then on)."""
    totals[0] += score[0]
    totals[1] += score[1]
    if outcome == "redeal":
        return None, target
    high = max(totals)
    if valat is not None and isinstance(opts, Bulgarian):
        if opts.valat_blocks_win == "raise_target" and high >= target:
            target = high + 1
        return None, target
    if high >= target and totals[0] != totals[1]:
        lead = 0 if totals[0] > totals[1] else 1
        if not isinstance(opts, Bulgarian) or opts.valat_blocks_win != "must_score" \
                or score[lead] > 0:
            return lead, target
    return None, target


# ====================================================================== a record replayed

ALL_CARDS = sorted(r + s for s in SUITS for r in RANKS)


def reference_report(doc: dict[str, Any]) -> dict[str, Any]:
    """The replay report (RECORD.md) of a record, every action checked by the rules above:
    what ``engine.record.replay`` and ``replay_report`` give, written plainly on card names.
    A record they refuse raises here too (ValueError, or whatever a malformed field
    raises), without their messages."""
    options = Options.make(doc["variant"], **doc.get("options", {}))
    deals = doc["deals"]
    dealer = deals[0]["dealer"] if deals else 0
    results: list[dict[str, Any]] = []
    totals, target, won = [0, 0], options.target_score, None
    gathered: list[str] | None = None  # the last deal's cards, picked up
    for i, entry in enumerate(deals):
        if won is not None:
            raise ValueError("the match was already won")
        if entry["dealer"] != dealer:
            raise ValueError(f"deal {i}: dealer must be {dealer}")
        deck = entry["deck"].split(" ")
        if sorted(deck) != ALL_CARDS:
            raise ValueError(f"deal {i}: not a deck")
        if gathered is not None and not options.reshuffle_each_deal \
                and not any(deck == gathered[k:] + gathered[:k] for k in range(3, 30)):
            raise ValueError(f"deal {i}: not a cut of the last deal's cards")
        result, gathered = reference_deal(options, dealer, deck, entry["actions"], pool=(
            results[-1]["hanging"] if results else 0))
        results.append(result)
        if result["outcome"] == "unfinished":
            if i != len(deals) - 1:
                raise ValueError(f"deal {i} stops before its end")
            break
        won, target = ref_match_step(totals, target, result["outcome"],
                                     result["score"], result["valat"], options)
        dealer = (dealer + 1) % 4
    return {"deals": results, "totals": totals, "winner": won}


def reference_deal(
    options: Options, dealer: int, deck: list[str], actions: list[dict[str, Any]], pool: int,
) -> tuple[dict[str, Any], list[str]]:
    """One deal's result as the report shows it, and its cards as gathered after it."""
    classic = isinstance(options, Classic)
    turned = deck[20] if classic else None
    calls: list[tuple[int, str]] = []
    auction = auction_of(calls)
    k = 0
    while not auction_over(calls, classic):
        if k == len(actions):
            return unfinished(None), deck
        entry = actions[k]
        seat, call = entry["seat"], entry["bid"]
        if set(entry) != {"seat", "bid"} or seat != (dealer + 1 + len(calls)) % 4 \
                or call not in legal_calls_after(auction, seat, turned):
            raise ValueError(f"action {k}: illegal call {entry}")
        calls.append((seat, call))
        auction = auction_of(calls)
        k += 1
    contract, declarer, multiplier = auction.contract, auction.declarer, auction.multiplier
    if contract is None or declarer is None:  # everyone passed
        if k != len(actions):
            raise ValueError(f"action {k}: the deal is over")
        return {"outcome": "redeal", "contract": None, "bidder": None, "multiplier": None,
                "card_points": [0, 0], "declarations": [0, 0], "belot": [0, 0],
                "valat": None, "score": [0, 0], "hanging": pool}, deck
    dealt = ref_hands(deck, dealer, classic, declarer)
    hands = [set(h) for h in dealt]
    leader = (dealer + 1) % 4
    trick: list[str] = []
    tricks: list[list[str]] = []
    card_points, won, belots = [0, 0], [0, 0], [0, 0]
    announced: list[tuple[int, frozenset[str]]] = []
    for j in range(k, len(actions)):
        entry = actions[j]
        if len(tricks) == 8 or not set(entry) <= {"seat", "card", "announce", "belot"}:
            raise ValueError(f"action {j}: not a card to play")
        seat, card = entry["seat"], entry["card"]
        if seat != (leader + len(trick)) % 4:
            raise ValueError(f"action {j}: not seat {seat}'s turn")
        for text in entry.get("announce", []):
            combo = frozenset(text.split(" "))
            mine = {c for s, c in announced if s == seat}
            if not isinstance(options, Bulgarian) or contract == "NT" or tricks \
                    or combo not in ref_announceable(dealt[seat], mine, options):
                raise ValueError(f"action {j}: seat {seat} cannot announce {text}")
            announced.append((seat, combo))
        if card not in ref_legal_cards(list(hands[seat]), trick, contract, options):
            raise ValueError(f"action {j}: seat {seat} cannot play {card}")
        if entry.get("belot", False):
            other = ("K" if card[0] == "Q" else "Q") + card[1]
            if card[0] not in "QK" or contract == "NT" or not is_trump(card, contract) \
                    or other not in hands[seat] \
                    or (contract == "AT" and trick and trick[0][1] != card[1]):
                raise ValueError(f"action {j}: seat {seat} cannot announce belot")
            belots[seat % 2] += 1
        hands[seat].remove(card)
        trick.append(card)
        if len(trick) == 4:
            leader = (leader + winner(trick, contract)) % 4
            card_points[leader % 2] += sum(value(c, contract) for c in trick)
            won[leader % 2] += 1
            tricks.append(trick)
            trick = []
    if len(tricks) < 8:
        return unfinished(auction), deck
    card_points[leader % 2] += 10
    valat = 0 if won[1] == 0 else 1 if won[0] == 0 else None
    decl = (0, 0)
    if isinstance(options, Classic):
        expected = ref_score_classic(declarer % 2, (card_points[0], card_points[1]),
                                     (belots[0], belots[1]), valat, pool, options)
    else:
        assert isinstance(options, Bulgarian)
        decl = ref_declarations(announced, contract, options) if announced else (0, 0)
        expected = ref_score_bulgarian(contract, declarer % 2, multiplier,
                                       (card_points[0], card_points[1]), decl,
                                       (belots[0], belots[1]), valat, pool, options)
    return {"outcome": expected.outcome, "contract": contract, "bidder": declarer,
            "multiplier": multiplier, "card_points": card_points, "declarations": list(decl),
            "belot": [20 * belots[0], 20 * belots[1]], "valat": valat,
            "score": list(expected.score), "hanging": expected.hanging,
            }, [c for t in tricks for c in t]


def auction_over(calls: list[tuple[int, str]], classic: bool) -> bool:
    """§4: a classic bid ends it, two rounds of passes throw the deal in; in bulgarian
    three passes after a call do, or four passes at the start."""
    said = [c for _, c in calls]
    if classic:
        return (bool(said) and said[-1] != "pass") or len(said) == 8
    return said == ["pass"] * 4 or (len(said) >= 4 and said[-3:] == ["pass"] * 3)


def unfinished(auction: Auction | None) -> dict[str, Any]:
    """A deal the record stops in; its contract once the auction is over."""
    return {"outcome": "unfinished",
            "contract": auction and auction.contract, "bidder": auction and auction.declarer,
            "multiplier": auction and auction.multiplier,
            "card_points": [0, 0], "declarations": [0, 0], "belot": [0, 0],
            "valat": None, "score": [0, 0], "hanging": 0}
