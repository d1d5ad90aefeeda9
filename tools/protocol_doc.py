"""docs/protocol.md's table of event kinds, written from the events' JSON Schema
(app/events.py), the one ``GET /api/protocol`` serves as ``events``.

Run ``python -m tools.protocol_doc`` after changing an event: it rewrites the table
between the markers, and leaves the rest of the file as it is.
tests/test_app_events.py fails while the docs differ from what it would write.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from app.events import schema

DOC = Path(__file__).resolve().parents[1] / "docs" / "protocol.md"
BEGIN = "<!-- events: written by `python -m tools.protocol_doc` from app/events.py -->\n"
END = "<!-- /events -->\n"


def cell(text: str) -> str:
    """A schema's description as one Markdown table cell."""
    return " ".join(text.split()).replace("|", "\\|")


def field(name: str, spec: dict[str, Any], required: bool) -> str:
    text = f"`{name}`" + ("" if required else " (optional)")
    return text + (f": {cell(spec['description'])}" if "description" in spec else "")


def table(events: dict[str, Any]) -> str:
    """One row per kind, in the union's order: what happened, its fields, the version."""
    rows = ["| `event.kind` | what happened | fields | version |", "|---|---|---|---|"]
    for branch in events["oneOf"]:
        event = events["$defs"][branch["$ref"].rsplit("/", 1)[1]]
        properties, required = event["properties"], set(event["required"])
        fields = [field(name, spec, name in required)
                  for name, spec in properties.items() if name != "kind"]
        rows.append(f"| `{properties['kind']['const']}` | {cell(event['description'])} | "
                    f"{'; '.join(fields)} | {event['x-version']} |")
    return "\n".join(rows) + "\n"


def written(doc: str, events: dict[str, Any]) -> str:
    """``doc`` with the table between the markers written anew from ``events``."""
    head, rest = doc.split(BEGIN, 1)
    _, tail = rest.split(END, 1)
    return head + BEGIN + table(events) + END + tail


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m tools.protocol_doc", description=__doc__)
    parser.add_argument("--doc", type=Path, default=DOC)
    path: Path = parser.parse_args(argv).doc
    path.write_text(written(path.read_text(encoding="utf-8"), schema()), encoding="utf-8")


if __name__ == "__main__":
    main()
