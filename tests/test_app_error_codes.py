"""One vocabulary of errors (issue 30): every code the server sends is an
:class:`~app.errors.ErrorCode`, spelled nowhere else in app/, with the status the REST
answers carry, served by ``GET /api/protocol``, listed in docs/protocol.md and given a
text in each of the client's languages."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

from fastapi.testclient import TestClient

from app.errors import ErrorCode
from engine.errors import IllegalActionError
from tests.test_app_errors import CASES
from tests.test_client_static import LANGUAGES, NAMESPACES, strings
from tools.error_codes import DOCS, written

ROOT = Path(__file__).resolve().parents[1]
CODES = {code.value: code for code in ErrorCode}
# What app/ hands a code to besides its own functions (whose parameter says `code`).
FOREIGN = {"PydanticCustomError": 0}
# Where a code becomes an HTTP answer: each must have a status.
HTTP = {("ApiError", False): 0, ("AccountError", False): 0, ("error_answer", False): 0}


def sources() -> Iterator[tuple[str, ast.AST]]:
    for path in sorted((ROOT / "app").rglob("*.py")):
        if path != ROOT / "app" / "errors.py":
            yield path.relative_to(ROOT).as_posix(), ast.parse(path.read_text(encoding="utf-8"))


def takers(trees: list[tuple[str, ast.AST]]) -> dict[tuple[str, bool], int]:
    """Every function and class (by its ``__init__``) of app/ that takes a code, with the
    code's position: a parameter typed ``ErrorCode``, else one named ``code`` typed
    ``str``.  Keyed by name and whether it is a method (called as ``x.name(...)``)."""
    found = {(name, False): position for name, position in FOREIGN.items()}
    for _, tree in trees:
        methods = {id(f) for node in ast.walk(tree) if isinstance(node, ast.ClassDef)
                   for f in node.body}
        for node in ast.walk(tree):
            function: ast.FunctionDef | ast.AsyncFunctionDef | None
            if isinstance(node, ast.ClassDef):
                function = next((f for f in node.body if isinstance(f, ast.FunctionDef)
                                 and f.name == "__init__"), None)
            elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                function = None if node.name == "__init__" else node
            else:
                continue
            position = None if function is None else code_position(function)
            if position is not None:
                found[node.name, id(node) in methods] = position
    return found


def code_position(function: ast.FunctionDef | ast.AsyncFunctionDef) -> int | None:
    params = [(a.arg, "" if a.annotation is None else ast.unparse(a.annotation))
              for a in function.args.posonlyargs + function.args.args
              if a.arg not in ("self", "cls")]
    typed = [i for i, (_, kind) in enumerate(params) if kind == "ErrorCode"]
    named = [i for i, (name, kind) in enumerate(params) if name == "code" and kind == "str"]
    return (typed + named + [None])[0]


def code_arguments(node: ast.Call | ast.Dict, taking: dict[tuple[str, bool], int]
                   ) -> list[ast.expr]:
    """What ``node`` passes as a code: a call's ``code=`` or its code's position, a
    dict's ``"code"`` entry."""
    if isinstance(node, ast.Dict):
        return [value for key, value in zip(node.keys, node.values, strict=True)
                if isinstance(key, ast.Constant) and key.value == "code"]
    function, position = node.func, None
    if isinstance(function, ast.Name):
        position = taking.get((function.id, False))
    elif isinstance(function, ast.Attribute):  # a method, or a class through its module
        position = taking.get((function.attr, True), taking.get(
            (function.attr, False)) if function.attr[:1].isupper() else None)
    positional = [] if position is None else node.args[position:position + 1]
    return [k.value for k in node.keywords if k.arg == "code"] + [
        a for a in positional if not isinstance(a, ast.Starred)]


def test_every_code_the_server_raises_is_one_of_the_enum() -> None:
    """No code is a bare string: none passed where a code goes (a keyword ``code=``, a
    parameter typed ``ErrorCode`` or named ``code``, pydantic's custom error, a dict's
    ``"code"``), and none spelled anywhere else in app/, so no code goes around the enum."""
    trees = list(sources())
    taking = takers(trees)
    assert {"TableError", "AccountError", "ApiError", "ProtocolError", "_refuse"} <= {
        name for name, _ in taking}
    bare, spelled = [], []
    for path, tree in trees:
        for node in ast.walk(tree):
            if isinstance(node, ast.Call | ast.Dict):
                for argument in code_arguments(node, taking):
                    if isinstance(argument, ast.Constant | ast.JoinedStr):
                        bare.append(f"{path}:{node.lineno}: {ast.unparse(argument)}")
            elif isinstance(node, ast.Constant) and node.value in CODES:
                spelled.append(f"{path}:{node.lineno}: {node.value!r}")
    assert not bare, "codes passed as strings: use ErrorCode"
    assert not spelled, "codes spelled outside app/errors.py: use ErrorCode"


def test_every_code_answered_over_http_has_its_status() -> None:
    """A code said on sockets only has no status: none may reach an HTTP answer."""
    used = [(path, node.lineno, argument.attr) for path, tree in sources()
            for node in ast.walk(tree) if isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name) and (node.func.id, False) in HTTP
            for argument in code_arguments(node, HTTP) if isinstance(argument, ast.Attribute)
            and isinstance(argument.value, ast.Name) and argument.value.id == "ErrorCode"]
    assert len(used) > 10, "no code found: the scan no longer matches the sources"
    assert not [use for use in used if ErrorCode[use[2]].status is None]


def test_every_refusal_of_the_engine_is_a_code() -> None:
    refusals, kinds = [], [IllegalActionError]
    while kinds:
        kind = kinds.pop()
        refusals.append(kind.code)
        kinds.extend(kind.__subclasses__())
    assert len(refusals) > 10 and not [code for code in refusals if code not in CODES]


def test_the_protocol_serves_every_code_with_the_status_the_server_answers(
        client: TestClient) -> None:
    served = client.get("/api/protocol").json()["errors"]
    assert served == {code.value: code.status for code in ErrorCode}
    assert {case.code: case.status for case in CASES.values()}.items() <= served.items()


def test_the_docs_list_every_code() -> None:
    """docs/protocol.md's table is the enum's: `python -m tools.error_codes` writes it."""
    docs = DOCS.read_text(encoding="utf-8")
    assert written(docs) == docs, "docs/protocol.md is stale: run python -m tools.error_codes"
    assert all(f"| `{code}` | {code.status or '—'} |" in docs for code in ErrorCode)


def test_every_language_has_a_text_for_every_code() -> None:
    for lang in LANGUAGES:
        keys = {key for namespace in NAMESPACES for key in strings(lang, namespace)}
        assert not [code.value for code in ErrorCode if f"error.{code}" not in keys], lang
