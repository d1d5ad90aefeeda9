"""The shape of ``app/``, kept as issue #30 left it: no module over 400 lines, and the
table package's imports running one way, from ``lobby.py`` and ``table.py`` down to the
leaves, with no circle (the handlers see the table as a ``TableContext``).  Read from the
source with ``ast``, imports under ``if TYPE_CHECKING:`` or inside functions included:
a circle hidden from the interpreter is still one for a reader."""

from __future__ import annotations

import ast
from graphlib import CycleError, TopologicalSorter
from pathlib import Path

APP = Path(__file__).resolve().parents[1] / "app"
MAX_LINES = 400


def test_no_module_of_app_is_over_400_lines() -> None:
    lengths = {str(path.relative_to(APP)): len(path.read_text().splitlines())
               for path in sorted(APP.rglob("*.py"))}
    assert lengths["tables/table.py"] > 0  # the walk found the package
    too_long = {name: lines for name, lines in lengths.items() if lines > MAX_LINES}
    assert too_long == {}


def imported(package: Path) -> dict[str, set[str]]:
    """Each module of ``package`` (``__init__`` for the package itself) and the modules of
    the package it imports, wherever in the file the import is."""
    dotted = ".".join(package.relative_to(APP.parent).parts)
    modules = {path.stem for path in package.glob("*.py")}
    graph: dict[str, set[str]] = {}
    for name in modules:
        path = package / f"{name}.py"
        edges = graph[name] = set()
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):  # a name of a module, or a module
                base = dotted.rsplit(".", node.level - 1)[0] if node.level else ""
                source = ".".join(part for part in (base, node.module) if part)
                targets = [f"{source}.{alias.name}" for alias in node.names]
            else:
                continue
            for target in targets:
                if target == dotted:
                    edges.add("__init__")
                elif target.startswith(f"{dotted}."):
                    module = target[len(dotted) + 1:].split(".")[0]
                    edges.add(module if module in modules else "__init__")
        edges.discard(name)
    return graph


def test_the_table_package_has_no_import_circle() -> None:
    graph = imported(APP / "tables")
    assert {"seats", "turns"} <= graph["table"]  # the walk sees the imports
    try:
        TopologicalSorter(graph).prepare()
    except CycleError as circle:
        raise AssertionError(f"app/tables imports in a circle: {circle.args[1]}") from None
