"""The one interface every bot level shares.

A bot is handed an :class:`engine.Observation` (its own hand, public cards and history,
its legal actions) and returns one of ``observation.legal_actions``.  It never sees the
engine's full state, so it cannot cheat even by mistake.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Protocol

from engine import Action, Observation

from .hard import DEFAULT_BUDGET_S, HardBot
from .normal import EasyBot, NormalBot


class Level(StrEnum):
    """The bots' levels, weakest first (docs/bots.md measures the steps between them)."""

    EASY = "easy"  # rules of thumb
    NORMAL = "normal"  # counts cards, infers voids, a measured bidding table
    HARD = "hard"  # samples the hidden hands and searches each exactly (C)


LEVELS = tuple(Level)


class Bot(Protocol):
    def choose(self, observation: Observation) -> Action: ...


def make_bot(level: str, seed: int | None = None, budget_s: float = DEFAULT_BUDGET_S) -> Bot:
    """A bot of ``level``; ``budget_s`` caps each ``hard`` decision (seconds of wall time)."""
    if level == Level.EASY:
        return EasyBot()
    if level == Level.NORMAL:
        return NormalBot()
    if level == Level.HARD:
        return HardBot(seed, budget_s)
    raise ValueError(f"unknown bot level {level!r}; choose one of {', '.join(LEVELS)}")


def decide(
    level: str, observation: Observation, seed: int | None = None,
    budget_s: float = DEFAULT_BUDGET_S,
) -> Action:
    """One decision as a plain function of picklable inputs, for a process pool."""
    return make_bot(level, seed, budget_s).choose(observation)
