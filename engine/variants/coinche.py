"""Coinche (Belote contrée, COINCHE.md): all eight cards dealt before an auction of point
bids (80 to 160, capot, générale) in a suit, sans-atout or tout-atout; coinche and
surcoinche; belote and optional announcements; three scoring scales; 29 flags and seven
presets (§9)."""

from __future__ import annotations

from bisect import bisect_left
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..actions import (
    CAPOT_VALUE,
    COINCHE,
    GENERALE_LEVEL,
    GENERALE_VALUE,
    PASS,
    POINT_BID,
    STRAIN_NAMES,
    SURCOINCHE,
    Action,
    contract_of,
    point_bid,
)
from ..cards import ACE, ALL_TRUMPS, JACK, KING, NINE, NO_TRUMPS, POINTS, QUEEN, TEN, Mask
from ..options import BELOT_CARDS, Options, _derived, flag
from ..scoring import FAILED, MADE, REDEAL, VALAT_BONUS, DealResult, MatchProgress, Tally

if TYPE_CHECKING:
    from ..deal import Deal
    from ..declarations import DeclarationRules

SA, TA = NO_TRUMPS, ALL_TRUMPS  # sans-atout and tout-atout are the NT and AT contracts


def _ta_points(values: dict[int, int]) -> tuple[int, ...]:
    return tuple(values.get(card & 7, 0) for card in range(32))


# The points of every card per strain (§1.2): suits as RULES.md, SA's ace 19, TA by
# ``ta_values``.  Built once: a table's rules share them.
_SA_POINTS = tuple(19 if card & 7 == ACE else POINTS[NO_TRUMPS][card] for card in range(32))
_TA_POINTS = {
    "J13": _ta_points({JACK: 13, NINE: 9, ACE: 7, TEN: 5, KING: 3, QUEEN: 1}),
    "J14": _ta_points({JACK: 14, NINE: 9, ACE: 6, TEN: 5, KING: 3, QUEEN: 1}),
}
_POINT_TABLES = {name: (*POINTS[:4], _SA_POINTS, ta) for name, ta in _TA_POINTS.items()}
_BELOT_TABLES = {"each_suit": BELOT_CARDS, "none": (*BELOT_CARDS[:5], 0)}
_PACKETS = {"3-2-3": (3, 2, 3), "3-3-2": (3, 3, 2), "2-3-3": (2, 3, 3)}
_FLAT = {"flat_500": 500, "flat_250": 250}  # capot_scoring's flat value K (§7.4)
_ROUNDING = {"nearest_5_up": 5, "nearest_6_up": 4}  # what is added before cutting to tens
_DIX_DE_DER_CAPOT = VALAT_BONUS  # the last trick is 100 instead of 10 on a capot (§7.1)


@dataclass(frozen=True, slots=True)
class AnnouncementRules:
    """How announcements score in Coinche (§6.2), in the shape of RULES.md's flags:
    one quint for a long run, carrés first, one comparison by value then carré over
    sequence then top card, equal ones to the trump suit then the first announced."""

    long_run: str = "single_quint"
    overlap_policy: str = "carre_first"
    declaration_resolution: str = "single_by_top"
    equal_sequences: str = "trump_then_first"


_ANNOUNCEMENTS = AnnouncementRules()

PRESETS: dict[str, dict[str, Any]] = {
    "default": {},
    "ffb_contree": {"target_score": 2000, "undertrump_on_opponent_ruff": "optional",
                    "partner_ruff_no_undertrump": False, "belote_on_failure": "to_winner"},
    "ffb_coinche": {"target_score": 2000, "undertrump_on_opponent_ruff": "optional",
                    "partner_ruff_no_undertrump": False, "announcements": True,
                    "made_rule": "beat_defence"},
    "pagat": {"target_score": 2000, "made_rule": "reach_bid_82", "coinche_scope": "bid"},
    "bga_coinche": {"target_score": 2000, "end_rule": "exceed", "allow_sa": True,
                    "allow_ta": True, "ta_belote": "none", "coinche_timing": "any_time",
                    "failure_base": 162, "rounding": "none", "capot_scoring": "flat_250"},
    "colver": {"target_score": 2000, "undertrump_on_opponent_ruff": "optional",
               "partner_ruff_no_undertrump": False, "belote_on_failure": "to_winner",
               "coinche_scope": "bid", "failure_base": 162, "surcoinche_multiplier": 3,
               "capot_scoring": "contract_250", "rounding": "none"},
    "club_simple": {"scoring": "bid_only", "rounding": "none"},
}


@dataclass(frozen=True, slots=True)
class Coinche(Options):
    """Coinche and its flags (COINCHE.md §9.1); ``preset`` names the §9.2 set of flags
    the others start from."""

    variant = "coinche"
    packets_before = (3, 3, 3, 3, 2, 2, 2, 2, 3, 3, 3, 3)  # ``deal_packets`` decides
    packets_after = ()
    turns_card = False
    contracts = tuple(range(ALL_TRUMPS + 1))  # strains C D H S SA TA (SA, TA by flag)
    multipliers = (1, 2, 3, 4)  # 3 or 4 surcoinched, by ``surcoinche_multiplier``
    auction_rounds = 1
    bid_ends_auction = False
    declaration_contracts = frozenset((0, 1, 2, 3, TA))
    card_scale = 1
    strain_names = STRAIN_NAMES
    belot_follows_in_all_trumps = False  # §6.1: any play of the first card
    presets = PRESETS

    target_score: int = flag(default=1000)
    preset: str = flag(*PRESETS)
    deal_packets: str = flag(*_PACKETS)
    end_rule: str = flag("reach", "exceed")
    both_over_target: str = flag("higher_total", "contract_winner")
    allow_sa: bool = flag(False, True)
    allow_ta: bool = flag(False, True)
    ta_values: str = flag(*_TA_POINTS)
    ta_belote: str = flag(*_BELOT_TABLES)
    generale: bool = flag(False, True)
    generale_value: int = flag(500, 600, 1000)
    coinche_timing: str = flag("in_turn", "any_time")
    overbid_after_coinche: bool = flag(False, True)
    undertrump_on_opponent_ruff: str = flag("compulsory", "optional")
    partner_ruff_no_undertrump: bool = flag(True, False)
    belote_counts_for_contract: bool = flag(True, False)
    belote_on_failure: str = flag("kept", "to_winner")
    announcements: bool = flag(False, True)
    announcements_count_for_contract: bool = flag(True, False)
    made_rule: str = flag("reach_bid", "reach_bid_82", "beat_defence")
    scoring: str = flag("made_plus_bid", "bid_only", "fixed_160")
    coinche_scope: str = flag("all", "bid")
    failure_base: int = flag(160, 162)
    surcoinche_multiplier: int = flag(4, 3)
    capot_scoring: str = flag("flat_500", "flat_250", "contract_250")
    unannounced_capot_bonus: bool = flag(True, False)
    rounding: str = flag("nearest_5_up", "nearest_6_up", "none")
    # Every bid the flags allow, in value then strain order (its action numbers' order).
    bids: tuple[Action, ...] = _derived()

    def __post_init__(self) -> None:
        Options.__post_init__(self)  # slots: no zero-argument super()
        strains = [0, 1, 2, 3] + [SA] * self.allow_sa + [TA] * self.allow_ta
        levels = range(GENERALE_LEVEL + 1 if self.generale else GENERALE_LEVEL)
        object.__setattr__(self, "bids", tuple(
            point_bid(level, strain) for level in levels for strain in sorted(strains)))

    # ------------------------------------------------------------- cards and deal

    def deal_shape(self) -> tuple[tuple[int, ...], tuple[int, ...]]:
        """Three rounds of packets, all 32 cards before the auction (§3.2)."""
        return tuple(size for size in _PACKETS[self.deal_packets] for _ in range(4)), ()

    def point_table(self) -> tuple[tuple[int, ...], ...]:
        return _POINT_TABLES[self.ta_values]

    def belot_table(self) -> tuple[Mask, ...]:
        return _BELOT_TABLES[self.ta_belote]

    def ruff_rule(self) -> tuple[bool, bool]:
        return (self.partner_ruff_no_undertrump,
                self.undertrump_on_opponent_ruff == "compulsory")

    def declarations_in(self, contract: int) -> DeclarationRules | None:
        return _ANNOUNCEMENTS if self.announcements and contract != SA else None

    def most_belots(self, contract: int) -> int:
        """None in SA, nor in TA with ``ta_belote = none``; one per suit in TA (§6.1)."""
        if contract == SA or (contract == TA and self.ta_belote == "none"):
            return 0
        return 4 if contract == TA else 1

    def strains(self) -> list[int]:
        """The strains these options let a bid name (SA and TA only when enabled)."""
        return sorted({contract_of(b) for b in self.bids})

    # ------------------------------------------------------------- auction

    def legal_calls(self, deal: Deal) -> list[Action]:
        """Higher bids (none after a coinche unless ``overbid_after_coinche``), pass,
        coinche an opposing bid, surcoinche a coinched own one (§4.2)."""
        multiplier = deal.multiplier
        calls: list[Action] = []
        if multiplier == 1 or self.overbid_after_coinche:
            above = 0  # the first bid of the level above the standing one
            if deal.bid >= 0:
                level = (deal.bid - POINT_BID) // len(STRAIN_NAMES)
                above = POINT_BID + (level + 1) * len(STRAIN_NAMES)
            calls += self.bids[bisect_left(self.bids, above):]
        calls.append(PASS)
        if deal.bid >= 0:
            same_team = (deal.declarer - deal.to_move) & 1 == 0
            if multiplier == 1 and not same_team:
                calls.append(COINCHE)
            elif multiplier == 2 and same_team:
                calls.append(SURCOINCHE)
        return calls

    def out_of_turn(self, deal: Deal) -> tuple[int, ...]:
        """With ``any_time``: the declarer's opponents not to move, while a bid stands
        uncoinched (§4.3)."""
        if self.coinche_timing != "any_time" or deal.bid < 0 or deal.multiplier != 1:
            return ()
        declarer = deal.declarer
        return tuple(s for s in ((declarer + 1) & 3, (declarer + 3) & 3) if s != deal.to_move)

    def redouble_multiplier(self) -> int:
        return self.surcoinche_multiplier

    # ------------------------------------------------------------- scoring

    def _capot_bid(self, value: int) -> bool:
        return value in (GENERALE_VALUE, CAPOT_VALUE)

    def card_points(self, tally: Tally) -> tuple[int, int]:
        """With the dix de der of 100 to a team that took every trick (§7.1)."""
        points = list(tally.card_points)
        if tally.valat is not None and (self.unannounced_capot_bonus
                                        or self._capot_bid(tally.value)):
            points[tally.valat] += _DIX_DE_DER_CAPOT
        return points[0], points[1]

    def _round(self, points: int) -> int:
        if self.rounding == "none":
            return points
        return (points + _ROUNDING[self.rounding]) // 10 * 10

    def score(self, tally: Tally, pool: int) -> tuple[str, tuple[int, int], int]:
        """§7.7: made or failed on exact points, the base score by ``scoring``, then
        announcements and belotes, then each team's line rounded."""
        cp = self.card_points(tally)
        value, m = tally.value, tally.multiplier
        b = tally.bidder & 1
        d = 1 - b
        ann = tally.declarations
        bel = (20 * tally.belots[0], 20 * tally.belots[1])
        pts = [cp[t] + ann[t] * self.announcements_count_for_contract
               + bel[t] * self.belote_counts_for_contract for t in (0, 1)]
        flat = value == GENERALE_VALUE or (value == CAPOT_VALUE
                                           and self.capot_scoring != "contract_250")
        if value == GENERALE_VALUE:
            made = tally.solo
        elif value == CAPOT_VALUE:
            made = tally.valat == b
        else:
            need = 82 if value == 80 and self.made_rule == "reach_bid_82" else value
            made = pts[b] >= need and (self.made_rule != "beat_defence" or pts[b] > pts[d])
        w = b if made else d
        s = [0, 0]
        if flat:
            s[w] = m * (self.generale_value if value == GENERALE_VALUE
                        else _FLAT[self.capot_scoring])
        else:
            base = self.failure_base
            if made and tally.valat == b and cp[b] == 162 + _DIX_DE_DER_CAPOT:
                base += _DIX_DE_DER_CAPOT  # F* (§7.4)
            if self.scoring == "made_plus_bid":
                if m > 1:
                    s[w] = (base + value) * m if self.coinche_scope == "all" \
                        else base + value * m
                elif made:
                    s[b], s[d] = cp[b] + value, cp[d]
                else:
                    s[d] = self.failure_base + value
            elif self.scoring == "bid_only":
                s[w] = value * m
            elif m > 1:  # fixed_160
                s[w] = base * m
            elif made:
                s[b], s[d] = cp[b], cp[d]
            else:
                s[d] = self.failure_base
        if made and m == 1:
            s[0] += ann[0] + bel[0]
            s[1] += ann[1] + bel[1]
        else:
            s[w] += ann[0] + ann[1]
            if self.belote_on_failure == "to_winner":
                s[w] += bel[0] + bel[1]
            else:
                s[0] += bel[0]
                s[1] += bel[1]
        return (MADE if made else FAILED), (self._round(s[0]), self._round(s[1])), 0

    def after_deal(self, before: MatchProgress, result: DealResult) -> MatchProgress:
        """§8: after a played deal, a total at the target (``reach``) or past it
        (``exceed``) ends the match: both over, the deal's winner with
        ``contract_winner``, else the higher total; equal totals play on."""
        totals = (before.totals[0] + result.score[0], before.totals[1] + result.score[1])
        target = before.target
        if result.outcome == REDEAL:
            return MatchProgress(totals, target, None)
        over = [t >= target if self.end_rule == "reach" else t > target for t in totals]
        winner: int | None = None
        if all(over) and self.both_over_target == "contract_winner":
            assert result.bidder is not None
            winner = result.bidder & 1 if result.outcome == MADE else 1 - (result.bidder & 1)
        elif any(over) and totals[0] != totals[1]:
            winner = 0 if totals[0] > totals[1] else 1
        return MatchProgress(totals, target, winner)

    # ------------------------------------------------------------- reports

    def contract_name(self, value: int, strain: int) -> str:
        """A bid as records write it: ``80H``, ``capotS``, ``generaleTA``."""
        text = ("capot" if value == CAPOT_VALUE else "generale" if value == GENERALE_VALUE
                else str(value))
        return text + STRAIN_NAMES[strain]

    def deal_report(self, result: DealResult,
                    totals: tuple[int, int] | None = None) -> dict[str, object]:
        """§10.3's per-deal object; ``totals`` left out for a summary's (§10.4)."""
        strain, value = result.contract, result.value
        report: dict[str, object] = {
            "outcome": result.outcome,
            "contract": None, "value": None, "trump": None, "bidder": None, "multiplier": None,
        }
        if strain is not None and value is not None:
            report |= {"contract": self.contract_name(value, strain), "value": value,
                       "trump": STRAIN_NAMES[strain], "bidder": result.bidder,
                       "multiplier": result.multiplier}
        report |= {
            "card_points": list(result.card_points),
            "declarations": list(result.declarations),
            "belot": list(result.belot),
            "capot": result.valat,
            "score": list(result.score),
        }
        if totals is not None:
            report["totals"] = list(totals)
        return report

    def read_summary(self, doc: dict[str, Any]) -> DealResult:
        from .coinche_summary import read_summary  # late import: it needs this class

        return read_summary(self, doc)

