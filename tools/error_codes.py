"""docs/protocol.md's table of error codes, written from app/errors.py between its two
markers: run ``python -m tools.error_codes`` after adding or changing a code.
tests/test_app_error_codes.py fails while the table in the docs is not this one."""

from __future__ import annotations

from pathlib import Path

from app.errors import ErrorCode

DOCS = Path(__file__).resolve().parents[1] / "docs" / "protocol.md"
BEGIN = "<!-- error codes: written by `python -m tools.error_codes` from app/errors.py -->"
END = "<!-- end of the error codes -->"


def table() -> str:
    """Every code, its status (``—`` for a code said on a socket only) and its meaning."""
    rows = [f"| `{code}` | {code.status or '—'} | {code.meaning} |" for code in ErrorCode]
    return "\n".join(["| code | status | meaning |", "|---|---|---|", *rows])


def written(docs: str) -> str:
    """``docs`` with the table between the markers replaced by :func:`table`."""
    before, begin, rest = docs.partition(BEGIN)
    _, end, after = rest.partition(END)
    if not begin or not end:
        raise ValueError(f"docs/protocol.md lacks the markers {BEGIN!r} ... {END!r}")
    return f"{before}{BEGIN}\n{table()}\n{END}{after}"


def main() -> None:
    DOCS.write_text(written(DOCS.read_text(encoding="utf-8")), encoding="utf-8")


if __name__ == "__main__":
    main()
