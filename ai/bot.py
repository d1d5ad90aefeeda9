"""The one interface every bot level shares.

A bot is handed an :class:`engine.Observation` (its own hand, public cards and history,
its legal actions) and returns one of ``observation.legal_actions``.  It never sees the
engine's full state, so it cannot cheat even by mistake.
"""

from __future__ import annotations

import random
from typing import Protocol

from engine import Action, Observation

LEVELS = ("easy", "normal", "hard")


class Bot(Protocol):
    def choose(self, observation: Observation) -> Action: ...


class RandomBot:
    """Plays a uniformly random legal action (placeholder until the levels land)."""

    def __init__(self, seed: int | None = None) -> None:
        self.rng = random.Random(seed)

    def choose(self, observation: Observation) -> Action:
        return self.rng.choice(observation.legal_actions)


def make_bot(level: str, seed: int | None = None) -> Bot:
    if level not in LEVELS:
        raise ValueError(f"unknown bot level {level!r}; choose one of {', '.join(LEVELS)}")
    return RandomBot(seed)


def decide(level: str, observation: Observation, seed: int | None = None) -> Action:
    """One decision as a plain function of picklable inputs, for a process pool."""
    return make_bot(level, seed).choose(observation)
