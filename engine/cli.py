"""``python -m engine replay|score|demo``: the record tools of RECORD.md and a demonstration."""

from __future__ import annotations

import argparse
import json
import random
import sys
from typing import Any, TextIO

from .actions import action_name, is_call
from .match import Match
from .options import Options
from .record import RecordError, legal_report, replay, replay_report
from .summary import summary_report
from .variants import DEFAULT_VARIANT, VARIANTS


def _load(path: str) -> Any:
    if path == "-":
        return json.load(sys.stdin)
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def _fail(prefix: str, reason: str) -> int:
    print(f"{prefix}{reason}", file=sys.stderr)
    return 1


def cmd_replay(args: argparse.Namespace) -> int:
    try:
        doc = _load(args.file)
    except (OSError, ValueError) as e:
        return _fail("deal 0, action 0: ", f"not a JSON record ({e})")
    try:
        match = replay(doc)
    except RecordError as e:
        return _fail("", str(e))
    report = legal_report(match) if args.legal else replay_report(match)
    print(json.dumps(report, indent=None if args.legal else 2))
    return 0


def cmd_score(args: argparse.Namespace) -> int:
    try:
        report = summary_report(_load(args.file))
    except (OSError, ValueError) as e:
        return _fail("", str(e))
    print(json.dumps(report, indent=2))
    return 0


def cmd_demo(args: argparse.Namespace, out: TextIO = sys.stdout) -> int:
    """Four random legal players play one match, shown deal by deal."""
    match = Match(Options.make(args.variant), seed=args.seed)
    rng = random.Random(args.seed)
    shown = 0
    while not match.is_over:
        match.apply_action(rng.choice(match.legal_actions()))
        for result in match.results[shown:]:
            shown += 1
            deal = match.deals[shown - 1]
            calls = " ".join(f"{s}:{action_name(a)}" for s, a in deal.history if is_call(a))
            line = f"deal {shown:>2}  dealer {deal.dealer}  {calls}"
            print(f"{line:<60} {result.outcome:<8} {result.score}  totals {match.totals}", file=out)
    print(f"team {match.winner} wins {match.totals[0]}:{match.totals[1]}", file=out)
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m engine", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("replay", help="check a belote-record/1 file and print its results")
    p.add_argument("file", help="the record, or - for standard input")
    p.add_argument("--legal", action="store_true", help="print who acts next and the legal actions")
    p.set_defaults(run=cmd_replay)
    p = sub.add_parser("score", help="score one deal from its summary")
    p.add_argument("file", help="the summary, or - for standard input")
    p.set_defaults(run=cmd_score)
    p = sub.add_parser("demo", help="four random players play a match")
    p.add_argument("--variant", choices=list(VARIANTS), default=DEFAULT_VARIANT)
    p.add_argument("--seed", type=int, default=None)
    p.set_defaults(run=cmd_demo)
    args = parser.parse_args(argv)
    return int(args.run(args))
