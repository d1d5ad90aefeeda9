"""The key registry (app/shared/keys.py) is the one place Redis names are made: every
name it describes has its builder and the reverse, docs/cluster.md lists exactly its
names, no other module gets REDIS_PREFIX or talks to Redis itself, and what real nodes
write to Redis has a name in it (:func:`unregistered`, called by the cluster tests)."""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import Path

from redis.asyncio import Redis

from app.shared.keys import NAMES, Keys, Name

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs" / "cluster.md"
BEGIN = "<!-- names: from app/shared/keys.py (NAMES); tests/test_shared_keys.py checks it -->"
END = "<!-- /names -->"
# The modules that may import a Redis client (or saq, on Redis by nature); every other one
# goes through the shared state.
REDIS_MODULES = {"app/shared/base.py", "app/shared/redis.py",
                 "app/matchmaking/redis_store.py", "app/analysis/queues.py"}
FIELD = re.compile(r"\{(\w+)\}")


def table() -> str:
    """docs/cluster.md's table of names, as :data:`NAMES` says."""
    rows = ["| name | kind | used by | what it holds |", "|---|---|---|---|"]
    for name in NAMES:
        shown = ", ".join(f"`{alternative}`" for alternative in name.shown.split(", "))
        rows.append(f"| {shown} | {name.kind} | `{name.user}` | {name.what} |")
    return "\n".join(rows)


def test_docs_list_every_name() -> None:
    text = DOCS.read_text()
    assert BEGIN in text and END in text, f"docs/cluster.md lacks {BEGIN} ... {END}"
    listed = text.split(BEGIN, 1)[1].split(END, 1)[0].strip()
    assert listed == table(), f"docs/cluster.md's names should read:\n\n{table()}\n"


def test_every_name_has_its_builder_and_every_builder_its_name() -> None:
    keys = Keys("p:")
    builders = {attr for attr in dir(Keys) if not attr.startswith("_")}
    assert builders == {name.attr for name in NAMES}
    assert len({name.pattern for name in NAMES}) == len(NAMES)
    for name in NAMES:
        fields = FIELD.findall(name.pattern)
        built = getattr(keys, name.attr)
        if fields:
            built = built(*(f"<{field}>" for field in fields))
        assert built == "p:" + FIELD.sub(r"<\1>", name.pattern), name
        assert (ROOT / name.user).is_file(), name


def test_no_module_spells_a_name_or_reaches_redis_itself() -> None:
    prefix_readers, redis_users = set(), set()
    for path in sorted((ROOT / "app").rglob("*.py")):
        module = str(path.relative_to(ROOT))
        text = path.read_text()
        if "redis_prefix" in text:
            prefix_readers.add(module)
        if re.search(r"^(from|import) (redis|saq)\b", text, re.MULTILINE):
            redis_users.add(module)
    # config.py reads it, sections.py hands it on (the cluster's section), app/shared uses it.
    assert prefix_readers == {"app/config.py", "app/sections.py", "app/shared/__init__.py"}
    assert redis_users == REDIS_MODULES


def matcher(name: Name, prefix: str) -> re.Pattern[str]:
    """What the keys of ``name`` look like under ``prefix``."""
    alternatives = []
    for shown in name.shown.split(", "):
        parts = re.split(r"(\{\w+\}|…)", shown)
        alternatives.append("".join(
            re.escape(prefix) if part == "{prefix}" else ".*" if part == "…" else
            ".+" if FIELD.fullmatch(part) else re.escape(part) for part in parts))
    return re.compile("|".join(f"(?:{a})" for a in alternatives))


def unregistered(found: Iterable[str], prefix: str) -> list[str]:
    """The keys of ``found`` (a test's, under ``prefix``) that no name describes."""
    patterns = [matcher(name, prefix) for name in NAMES]
    return sorted(key for key in found if not any(p.fullmatch(key) for p in patterns))


async def check_written(redis_url: str, prefix: str) -> None:
    """Every key under ``prefix`` (saq's included) has a name in the registry."""
    async with Redis.from_url(redis_url, decode_responses=True) as redis:
        found = [key async for key in redis.scan_iter(match=f"*{prefix}*", count=1000)]
    assert found, f"no key under {prefix}"
    assert unregistered(found, prefix) == [], "keys of no name in app/shared/keys.py"


def test_the_matcher_tells_names_apart() -> None:
    keys = Keys("pre:")
    assert unregistered([keys.lease("t1"), keys.queue_line("classic+rated"),
                         "pre:limits:{LIMITER/login-pair/1.2.3.4/x/3/1/second}/-1",
                         "saq:job:pre:analysis:m1", "saq:pre:analysis:queued"], "pre:") == []
    assert unregistered(["pre:owners:t1", "pre:queue:other", "saq:other:analysis:x"],
                        "pre:") == ["pre:owners:t1", "pre:queue:other", "saq:other:analysis:x"]
