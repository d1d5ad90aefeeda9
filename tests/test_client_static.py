"""The browser client's files, checked without a browser: every language has every
string with the same placeholders, every key the code asks for exists, every name a
module imports is exported, nothing is loaded from elsewhere, the server's protocol words
are not written again in the client, and the app serves the files with the types browsers
demand."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from ai import LEVELS
from app.protocol import CloseCode
from engine.variants import VARIANTS

STATIC = Path(__file__).resolve().parents[1] / "app" / "static"
LANGUAGES = ("en", "bg", "fr", "de", "es", "el", "ko")
NAMESPACES = ("core", "history", "chat", "help", "play", "account", "analysis", "sheets",
              "competition", "community")
PLACEHOLDER = re.compile(r"\{(\w+)\}")
# t("key") or t('key', ...) in the client's modules
KEY_USE = re.compile(r"""\bt\(\s*(["'])([^"'\\\n]+)\1""")
# t(`level.${seat.level}`): a key built at run time, known by its fixed start
KEY_PREFIX_USE = re.compile(r"\bt\(\s*`([^`$]+)\$\{")
# import ... from "./x.js", import("./x.js"), export ... from "./x.js"
IMPORT = re.compile(r"""(?:(?<![.\w])from|(?<![.\w])import)\s*\(?\s*(["'])([^"']+)\1""")
# import { a, b as c } from "./x.js"; export { a } from "./x.js"
NAMED_IMPORT = re.compile(r"""\bimport\s*\{([^}]*)\}\s*from\s*(["'])([^"']+)\2""")
EXPORTED = re.compile(
    r"""\bexport\s+(?:async\s+)?(?:function\*?|const|let|class)\s+(\w+)"""
    r"""|\bexport\s*\{([^}]*)\}\s*from""")
NUMBER = re.compile(r"(?<![\w.])\d+(?![\w.])")
QUOTED = re.compile(r"""(["'`])(\w+)\1""")
PROTOCOL_LITERAL = re.compile(r"protocol\w*\s*[:=]\s*\d", re.IGNORECASE)
# XML namespaces name, they do not load: the SVG cards need them.
NAMESPACE_URIS = {"http://www.w3.org/2000/svg", "http://www.w3.org/1999/xlink",
                  "http://www.w3.org/1999/xhtml"}
URL = re.compile(r"""https?://[^\s"'`)<>]*""")
# What the page itself loads (links to pages, like the API docs, load nothing).
LOADED = re.compile(r"""<(script|link|img|source)\b[^>]*?\b(?:src|href)\s*=\s*(["'])(.*?)\2""")
JS_TYPES = ("text/javascript", "application/javascript")


def strings(lang: str, namespace: str) -> dict[str, str]:
    path = STATIC / "i18n" / lang / f"{namespace}.json"
    assert path.is_file(), f"missing {path.relative_to(STATIC)}"
    loaded = json.loads(path.read_text(encoding="utf-8"))
    assert isinstance(loaded, dict) and all(
        isinstance(key, str) and isinstance(value, str) for key, value in loaded.items()
    ), f"{path.relative_to(STATIC)} is not a flat object of strings"
    return loaded


def modules() -> list[Path]:
    found = sorted((STATIC / "js").glob("*.js"))
    assert found, "no client modules in app/static/js"
    return found


def static_files() -> list[Path]:
    return sorted(path for path in STATIC.rglob("*") if path.is_file())


@pytest.mark.parametrize("namespace", NAMESPACES)
@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_language_has_every_string_with_its_placeholders(lang: str,
                                                               namespace: str) -> None:
    english, translated = strings("en", namespace), strings(lang, namespace)
    assert sorted(translated) == sorted(english)
    assert not [key for key, text in translated.items() if not text.strip()]
    different = {key: (PLACEHOLDER.findall(english[key]), PLACEHOLDER.findall(text))
                 for key, text in translated.items()
                 if sorted(PLACEHOLDER.findall(text)) != sorted(PLACEHOLDER.findall(english[key]))}
    assert not different


# One form of address per language (issue #35): Bulgarian says "Вие" (its informal
# pronouns and imperatives here were a mix), German says "du" ("Sie" only as "they",
# "Ihr" only as the plural "you" opening a sentence: "Ihr gewinnt"; mid-sentence, as in
# "möchte Ihr Freund sein", it is the formal "your").
INFORMAL_BG = re.compile(r"(?<!\w)(ти|теб|тебе|твой|твоя|твоят|твоите|твоето|твоята|пишеш|видиш|"
                         r"можеш|имаш|искаш|играеш|избери|играй|създай|влез|изпрати|напиши|"
                         r"изчакай|смени|добави|започни|седни|копирай|покажи|махни|вземи|затвори|"
                         r"анализирай|заглуши|стани|попълни|гледай)(?!\w)",
                         re.IGNORECASE)
FORMAL_DE = re.compile(r"\b(Ihnen|Ihre|Ihren|Ihrem|Ihrer|Ihres)\b|\b(?:[a-zäöüß]\w*en) Sie\b"
                       r"|(?<=[a-zäöüß] )Ihr\b")


@pytest.mark.parametrize("namespace", NAMESPACES)
def test_each_language_addresses_the_player_one_way(namespace: str) -> None:
    informal = {key: text for key, text in strings("bg", namespace).items()
                if INFORMAL_BG.search(text)}
    formal = {key: text for key, text in strings("de", namespace).items()
              if FORMAL_DE.search(text)}
    assert not informal
    assert not formal


def test_every_key_the_client_asks_for_is_in_english() -> None:
    known = {key for namespace in NAMESPACES for key in strings("en", namespace)}
    used = {(path.name, match[1]) for path in modules()
            for match in KEY_USE.findall(path.read_text(encoding="utf-8"))}
    assert used, "no t(...) call found: the pattern no longer matches the client"
    assert not sorted((name, key) for name, key in used if key not in known)


def test_every_key_family_the_client_builds_exists_in_english() -> None:
    known = {key for namespace in NAMESPACES for key in strings("en", namespace)}
    used = {(path.name, prefix) for path in modules()
            for prefix in KEY_PREFIX_USE.findall(path.read_text(encoding="utf-8"))}
    assert used, "no t(`...${...}`) call found: the pattern no longer matches the client"
    assert not sorted((name, prefix) for name, prefix in used
                      if not any(key.startswith(prefix) for key in known))


def test_the_modules_import_only_local_files_that_exist() -> None:
    for path in modules():
        for _, target in IMPORT.findall(path.read_text(encoding="utf-8")):
            assert target.startswith(("./", "../", "/")), f"{path.name} imports {target}"
            resolved = (STATIC / target.lstrip("/")) if target.startswith("/") \
                else (path.parent / target)
            assert resolved.resolve().is_file(), f"{path.name} imports missing {target}"


def exports(path: Path) -> set[str]:
    text = path.read_text(encoding="utf-8")
    return {name for single, listed in EXPORTED.findall(text)
            for name in ([single] if single else names(listed))}


def names(listed: str) -> list[str]:
    """``a, b as c`` -> ``["a", "b"]``: the names as the exporting module has them."""
    return [part.split(" as ")[0].strip() for part in listed.split(",") if part.strip()]


def test_every_name_a_module_imports_is_exported_by_it() -> None:
    missing = [(path.name, name, target) for path in modules()
               for listed, _, target in NAMED_IMPORT.findall(path.read_text(encoding="utf-8"))
               for name in names(listed)
               if name not in exports((path.parent / target).resolve())]
    assert not missing


def test_the_client_takes_the_protocol_words_from_the_server() -> None:
    """Close codes, the protocol version, bot levels and variants are the server's
    (``GET /api/protocol``): no module writes one again.  Whole thousands (1000, 4000)
    are left out: they are also milliseconds all over the client."""
    codes = {str(code.value) for code in CloseCode if code % 1000}
    words = set(LEVELS) | set(VARIANTS)
    found = []
    for path in modules():
        text = path.read_text(encoding="utf-8")
        found += [(path.name, number) for number in NUMBER.findall(text) if number in codes]
        found += [(path.name, word) for _, word in QUOTED.findall(text) if word in words]
        found += [(path.name, literal) for literal in PROTOCOL_LITERAL.findall(text)]
        found += [(path.name, close) for close in re.findall(r"\.close\(\s*\d+", text)]
    assert not found


def test_nothing_is_loaded_from_another_host() -> None:
    found = {
        (str(path.relative_to(STATIC)), url)
        for path in static_files() if path.suffix in (".html", ".js", ".css", ".json", ".svg")
        for url in URL.findall(path.read_text(encoding="utf-8"))
        if url not in NAMESPACE_URIS
    }
    assert not found


def test_the_page_loads_only_files_the_app_has() -> None:
    html = (STATIC / "index.html").read_text(encoding="utf-8")
    loaded = [match[2] for match in LOADED.findall(html)]  # no data: URL (the CSP's img-src)
    assert any(ref.endswith(".js") for ref in loaded), "index.html loads no script"
    missing = [ref for ref in loaded if not (STATIC / ref.lstrip("/")).is_file()]
    assert not missing


def test_the_app_serves_the_client_with_its_content_types(client: TestClient) -> None:
    page = client.get("/")
    assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
    for path in modules():
        served = client.get(f"/js/{path.name}")
        assert served.status_code == 200, path.name
        assert served.headers["content-type"].startswith(JS_TYPES), (path.name, served.headers)
        assert served.text == path.read_text(encoding="utf-8")
    for lang in LANGUAGES:
        for namespace in NAMESPACES:
            served = client.get(f"/i18n/{lang}/{namespace}.json")
            assert served.status_code == 200, (lang, namespace)
            assert served.headers["content-type"].startswith("application/json")
            assert served.json() == strings(lang, namespace)
    for sheet in sorted(STATIC.glob("css/*.css")):
        served = client.get(f"/css/{sheet.name}")
        assert served.status_code == 200 and served.headers["content-type"].startswith("text/css")


def test_the_score_keeper_holds_no_copy_of_the_deal_rules() -> None:
    """The card points of a deal, its belots and a capot's points are the sheet's, from
    the engine (``GET /api/scoresheets/{id}``): the score keeper writes none of them."""
    text = (STATIC / "js" / "scoresheet.js").read_text(encoding="utf-8")
    numbers = set(re.findall(r"(?<![\w.])\d+(?![\w.])", text))
    assert not numbers & {"162", "130", "258", "252", "90", "250", "500"}
    assert not re.search(r"\b(TOTALS|MOST_BELOTS)\b", text)
    for field in ("card_totals", "most_belots", "capot_points"):
        assert f".{field}" in text, field
