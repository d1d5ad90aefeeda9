// The rules help: what this server plays, per variant, as a page (#/rules,
// #/rules/<variant>) and as a dialog over a table (the table plays on behind it, so a
// player never leaves a game to read). The long text is not in the i18n namespaces that
// every page loads: it is one file per language, rules/<lang>.json, fetched when first
// shown; every language has its own. Its blocks are {p}, {ul} or {table} (first row
// the header); in its strings **bold**, *house rule* (what a table may change) and red
// suit symbols are marked up.

import { h, fill } from "./dom.js";
import { language, t } from "./i18n.js";
import { protocol } from "./protocol.js";
import { houseRulesList } from "./house-rules.js";

const INLINE = /(\*\*[^*]+\*\*|\*[^*]+\*|[♥♦])/;
const texts = new Map(); // lang -> the promise of its parsed file

function loadText(lang) {
  if (!texts.has(lang)) {
    texts.set(lang, fetch(`/rules/${lang}.json`).then((response) => {
      if (!response.ok) throw new Error(`rules/${lang}.json: ${response.status}`);
      return response.json();
    }).catch((error) => {
      texts.delete(lang); // tried again next time
      throw error;
    }));
  }
  return texts.get(lang);
}

/** The rules in the page's language. */
function rulesText() {
  return loadText(language());
}

function inline(text) {
  return text.split(INLINE).filter(Boolean).map((part) => {
    if (part.startsWith("**")) return h("strong", {}, part.slice(2, -2));
    if (part.startsWith("*")) return h("em.house", {}, part.slice(1, -1));
    if (part === "♥" || part === "♦") return h("span.red-suit", {}, part);
    return part;
  });
}

function block(item) {
  if (item.p) return h("p", {}, inline(item.p));
  if (item.ul) return h("ul", {}, item.ul.map((line) => h("li", {}, inline(line))));
  const [head, ...rows] = item.table;
  return h("div.rules-table-wrap", {}, h("table.rules-table", {},
    h("thead", {}, h("tr", {}, head.map((cell) => h("th", { scope: "col" }, inline(cell))))),
    h("tbody", {}, rows.map((row) => h("tr", {}, row.map((cell) => h("td", {}, inline(cell))))))));
}

/** A variant's text: its intro, then every section. */
function variantText(own, heading = "h2") {
  return [
    h("p.rules-intro", {}, inline(own.intro)),
    own.sections.map((section) => h("section.rules-section", { "data-section": section.id },
      h(heading, {}, section.title), section.blocks.map(block))),
  ];
}

/** Jumps to the sections; buttons, since a link's hash would be taken for a route. */
function contents(own, page) {
  return h("nav.rules-contents", { "aria-label": t("help.contents") },
    own.sections.map((section) => h("button.btn.ghost.small", { type: "button",
      onclick: () => page.querySelector(`[data-section=${section.id}]`).scrollIntoView({ block: "start" }) },
    section.title)));
}

/** The rules page of `requested` (a variant; the default one when unknown). */
export function renderRules(root, ctx, requested) {
  const { values, default: preset } = protocol.variants;
  const variant = values.includes(requested) ? requested : preset;
  const page = h("section#rules.rules-page", { "data-variant": variant },
    h("p.muted", { "aria-busy": "true" }, t("help.loading")));
  fill(root, page);
  let gone = false;
  rulesText().then((text) => {
    if (gone) return;
    const own = text[variant];
    fill(page,
      h("nav.rules-tabs", { "aria-label": t("help.variants") }, values.map((name) => h(
        `a.rules-tab${name === variant ? ".active" : ""}`,
        { href: `#/rules/${name}`, "data-testid": "rules-variant", "data-variant": name,
          "aria-current": name === variant ? "page" : null }, t(`variant.${name}`)))),
      h("h1", {}, own.title),
      contents(own, page),
      variantText(own));
  }, () => {
    if (!gone) fill(page, h("div.card.error", {}, t("help.unavailable")));
  });
  return () => { gone = true; };
}

/** The rules of `table`'s variant in `dialog`, modal over the table: the table's own
 *  house rules first, a link to the page in a new tab, then the variant's text. */
export function showRulesDialog(dialog, table) {
  const close = () => dialog.close();
  const body = h("div.rules-body", {}, h("p.muted", { "aria-busy": "true" }, t("help.loading")));
  fill(dialog,
    h("div.dialog-head", {}, h("h2", {}, t("help.rules_of", { variant: t(`variant.${table.variant}`) })),
      h("button.btn.ghost.close", { type: "button", "data-testid": "close", onclick: close,
                                    "aria-label": t("common.close") }, "✕")),
    h("div.rules-scroll", {},
      h("h3", {}, t("help.this_table")),
      houseRulesList(table.variant, table.options),
      h("p", {}, h("a.rules-page-link", { href: `#/rules/${table.variant}`, target: "_blank", rel: "noopener",
                                          "data-testid": "rules-page-link" }, t("help.open_page"))),
      body),
    h("div.dialog-foot", {}, h("button.btn.primary", { type: "button", "data-testid": "back-to-table", onclick: close },
      t("help.back_to_table"))));
  if (!dialog.open) dialog.showModal();
  rulesText().then((text) => fill(body, variantText(text[table.variant], "h3")),
    () => fill(body, h("p.error", {}, t("help.unavailable"))));
}
