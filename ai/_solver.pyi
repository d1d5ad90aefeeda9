"""The exact search of ai/solver.py, compiled from ai/_solver.c (see there)."""

from collections.abc import Sequence

class Core:
    """The search of one contract under one set of rules, with its cache."""

    @property
    def nodes(self) -> int: ...

    def __init__(
        self, trumps: int, beats: Sequence[int], points: Sequence[int],
        strength: Sequence[int], order: Sequence[int], ruffs: int, valat_weight: int,
        no_undertrump_partner: bool, must_undertrump: bool, *, cache_bits: int = 17,
        weights: Sequence[int] | None = None,
    ) -> None: ...
    def search(
        self, hands: Sequence[int], trick: Sequence[int], leader: int, taken: int,
        alpha: int, beta: int, seconds: float, depth: int = 0, /,
    ) -> int | None:
        """The value within (alpha, beta), or None when ``seconds`` (negative: no limit)
        ran out first; ``depth``: tricks to complete before the rest is estimated by the
        ``weights`` (0: to the end of the deal)."""
    def play(
        self, hands: Sequence[int], trick: Sequence[int], leader: int, taken: int,
        card: int, alpha: int, beta: int, seconds: float, depth: int = 0, /,
    ) -> int | None:
        """The value after the seat to move plays ``card``, within (alpha, beta), or None
        when ``seconds`` ran out first."""
    def legal(self, hand: int, trick: Sequence[int], win_card: int,
              partner_winning: bool, /) -> int:
        """engine.deal.legal_cards, as the search applies it."""
