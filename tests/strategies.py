"""Shared hypothesis strategies and helpers for the engine's property tests.

The house-rule flags are written out here from RULES.md §9 (not read from the engine), so
that a flag the engine forgets or misnames shows up in ``test_flags_match_rules``.
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from hypothesis import strategies as st

from engine.actions import Action
from engine.match import Match
from engine.options import Options

VARIANTS = ("bulgarian", "classic")

# How many examples the property tests draw: a share of each one's thorough count in
# `make test`, the whole count with BELOTE_THOROUGH=1 (docs/testing.md).  Every example
# is a fresh random match, so the shorter run checks the same things on fewer matches.
THOROUGH = os.environ.get("BELOTE_THOROUGH") == "1"
SHARE = 4


def examples(thorough: int) -> int:
    """``thorough`` examples with BELOTE_THOROUGH=1, else a quarter of them (10 at least)."""
    return thorough if THOROUGH else max(10, thorough // SHARE)

# RULES.md §9: flag -> allowed values, the variant's default first.
COMMON_FLAGS: dict[str, tuple[Any, ...]] = {
    "reshuffle_each_deal": (True, False),
}
BULGARIAN_FLAGS: dict[str, tuple[Any, ...]] = {
    "table_direction": ("counterclockwise", "clockwise"),
    **COMMON_FLAGS,
    "target_score": (151, 51, 101, 251),
    "valat_multiplied": (True, False),
    "valat_blocks_win": ("raise_target", "extra_deal", "must_score"),
    "declaration_resolution": ("per_category", "single"),
    "equal_sequences": ("cancel", "trump_then_first"),
    "long_run": ("single_quint", "quint_plus_tierce_for_8"),
    "overlap_policy": ("carre_first", "player_choice"),
}
CLASSIC_FLAGS: dict[str, tuple[Any, ...]] = {
    "table_direction": ("clockwise", "counterclockwise"),
    **COMMON_FLAGS,
    "target_score": (1000, 301, 501),
    "undertrump_on_opponent_ruff": ("compulsory", "optional"),
    "partner_ruff_no_undertrump": (True, False),
    "belote_counts_for_contract": (True, False),
    "litige": ("carry", "takers_fail", "takers_make"),
}
FLAGS: dict[str, dict[str, tuple[Any, ...]]] = {
    "bulgarian": BULGARIAN_FLAGS,
    "classic": CLASSIC_FLAGS,
}

seeds: st.SearchStrategy[int] = st.integers(min_value=0, max_value=2**32 - 1)


def flag_sets(variant: str) -> st.SearchStrategy[dict[str, Any]]:
    """Random values for every flag of ``variant``."""
    return st.fixed_dictionaries(
        {name: st.sampled_from(values) for name, values in FLAGS[variant].items()}
    )


def options_for(variant: str) -> st.SearchStrategy[Options]:
    """Options of ``variant`` with every flag drawn at random."""
    return flag_sets(variant).map(lambda flags: Options.make(variant, **flags))


def any_options() -> st.SearchStrategy[Options]:
    """Options of either variant with random flags."""
    return st.sampled_from(VARIANTS).flatmap(options_for)


Visitor = Callable[[Match, list[Action]], None]


def random_steps(
    match: Match, rng: random.Random, max_actions: int | None = None
) -> Iterator[tuple[Match, list[Action], Action]]:
    """Play on ``match`` by uniform random choice among the legal actions.

    Yields ``(match, legal, chosen)`` before each action is applied; the caller may look at
    the match but must leave it as it was.  Stops when the match is over or after
    ``max_actions`` actions.
    """
    steps = 0
    while not match.is_over and (max_actions is None or steps < max_actions):
        legal = match.legal_actions()
        assert legal, "a match that is not over always has a legal action"
        action = rng.choice(legal)
        yield match, legal, action
        match.apply_action(action)
        steps += 1


def random_match_steps(
    options: Options, seed: int, max_actions: int | None = None
) -> Iterator[tuple[Match, list[Action], Action]]:
    """:func:`random_steps` on a new match; both the match and the chooser use ``seed``."""
    return random_steps(Match(options, seed=seed), random.Random(seed), max_actions)


def play_random_match(
    options: Options,
    seed: int,
    max_actions: int | None = None,
    visit: Visitor | None = None,
) -> Match:
    """The match of :func:`random_match_steps`, returned; ``visit`` sees each position."""
    match = Match(options, seed=seed)
    for position, legal, _ in random_steps(match, random.Random(seed), max_actions):
        if visit is not None:
            visit(position, legal)
    return match


# ---------------------------------------------------------------------- record tools

EXAMPLE_RECORD = Path(__file__).parent / "data" / "record_example.json"


def example_record() -> dict[str, Any]:
    """A fresh copy of RECORD.md's example record (tests/data/record_example.json)."""
    doc = json.loads(EXAMPLE_RECORD.read_text(encoding="utf-8"))
    assert isinstance(doc, dict)
    return doc


def run_engine(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    """``python -m engine ARGS`` in a subprocess, as a user would run it."""
    return subprocess.run(
        [sys.executable, "-m", "engine", *args],
        input=stdin, capture_output=True, text=True, timeout=60,
        cwd=Path(__file__).resolve().parent.parent, check=False,
    )


def write_json(directory: Path, name: str, doc: Any) -> Path:
    path = directory / name
    path.write_text(json.dumps(doc), encoding="utf-8")
    return path
