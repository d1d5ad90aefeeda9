// The lobby: your name, Play now (quickplay.js), open tables (refreshed), and the
// create-table form.

import { api, createGuest, guest, isAccount } from "./api.js";
import { h, fill } from "./dom.js";
import { t } from "./i18n.js";
import { cardSvg } from "./cards.js";
import { protocol } from "./protocol.js";
import { changedOptions, flagControl, houseRulesLine, variantSpecs } from "./house-rules.js";
import { playNowCard, showQueue } from "./quickplay.js";
import { profileLink, ratingMark } from "./rating.js";
import { presetBase, presetSets, wirePresets } from "./presets.js";

const HERO_CARDS = ["JH", "9H", "AH", "TH", "KH", "QH"];

const REFRESH_MS = 4000;
const PAGE_SIZE = 50; // tables a page of the list shows (the server allows up to 100)

// What the visitor typed in the lobby's forms, by control: a language or settings change
// rebuilds the page, and the typing must survive it.  Cleared once it has been used.
const draft = new Map();

/** Keep `form`'s typed values in the draft (`keyOf(control)` names them, or skips one). */
function keepDraft(form, keyOf = (el) => el.name || el.id) {
  const keep = (event) => {
    const el = event.target, key = keyOf(el);
    if (key) draft.set(key, el.type === "checkbox" ? el.checked : el.value);
  };
  form.addEventListener("input", keep);
  form.addEventListener("change", keep);
}

/** Put the draft's values back into the controls of `container`. */
function restoreDraft(container, keyOf = (el) => el.name || el.id) {
  for (const el of container.querySelectorAll("input, select")) {
    const key = keyOf(el);
    if (!key || !draft.has(key)) continue;
    if (el.type === "checkbox") el.checked = draft.get(key);
    else el.value = draft.get(key);
  }
}

function clearDraft(prefix) {
  for (const key of [...draft.keys()]) if (key.startsWith(prefix)) draft.delete(key);
}

/** Log in, or create an account (which keeps a guest's history), beside the guest's name. */
function accountLinks() {
  return h("p.account-links", {},
    h("a.btn.ghost", { href: "#/login", "data-testid": "card-login" }, t("account.log_in")),
    h("a.btn.ghost", { href: "#/signup", "data-testid": "card-signup" },
      t(guest() ? "account.keep_history" : "account.sign_up")));
}

/** The name card: who you are, and a field to pick (or change) a guest's name; an account
 *  has its username for life, and its profile. */
export function nameCard(ctx, { onSaved, prompt } = {}) {
  const me = guest();
  if (me && me.account) {
    return h("section.card.name-card", {},
      h("h2", {}, t("account.signed_in")),
      h("p.muted", {}, t("lobby.playing_as"), " ", h("strong", { "data-testid": "whoami" }, me.name)),
      h("p", {}, profileLink(me.id, t("account.profile"), { "data-testid": "card-profile" })));
  }
  const input = h("input#guest-name", {
    type: "text", maxlength: 32, autocomplete: "nickname", required: true,
    placeholder: t("lobby.name_placeholder"), value: me ? me.name : "",
    "aria-label": t("lobby.your_name"),
  });
  const save = async (event) => {
    event.preventDefault();
    const name = input.value.trim();
    if (!name) return input.focus();
    try {
      await createGuest(name);
      clearDraft("guest-name");
      ctx.refreshHeader();
      if (onSaved) onSaved();
    } catch (exc) {
      ctx.toast(exc);
    }
  };
  const form = h("form.card.name-card", { onsubmit: save },
    h("h2", {}, prompt || t("lobby.your_name")),
    me ? h("p.muted", {}, t("lobby.playing_as"), " ",
      h("strong", { "data-testid": "whoami" }, me.name)) : h("p.muted", {}, t("lobby.pick_name")),
    h("div.row", {}, input,
      h("button.btn.primary", { type: "submit", "data-testid": "save-name" },
        me ? t("lobby.rename") : t("lobby.save_name"))),
    accountLinks(),
  );
  keepDraft(form);
  restoreDraft(form);
  return form;
}

/** The create form's "Rated" box: accounts only (a hint says so to others); a rated table
 *  is public, so it unticks and locks "Private". */
function ratedControl() {
  const box = h("input", { type: "checkbox", name: "rated", "data-testid": "rated", disabled: !isAccount(),
    onchange: () => {
      const privacy = box.form.elements.private;
      privacy.disabled = box.checked;
      if (box.checked) privacy.checked = false;
    } });
  return h("label.check.rated-check", {}, box, h("span", {}, t("rated.label")),
    isAccount() ? null : h("a.rated-hint", { href: "#/login", "data-testid": "rated-hint" }, t("rated.accounts_only")));
}

function createForm(ctx) {
  const me = guest();
  const rules = h("div.flags");
  const { values: names, default: preset } = protocol.variants;
  const variant = h("select", { name: "variant" },
    names.map((name) => h("option", { value: name, selected: name === preset }, t(`variant.${name}`))));
  const form = h("form#create-table.card", {},
    h("h2", {}, t("lobby.new_table")),
    h("div.grid", {},
      h("label", {}, h("span", {}, t("lobby.variant")), variant),
      h("label", {}, h("span", {}, t("lobby.table_name")),
        h("input", { name: "name", maxlength: 32, required: true,
                     value: me ? t("lobby.default_table_name", { name: me.name }) : "" })),
      h("label", {}, h("span", {}, t("lobby.turn_seconds")),
        h("input", { name: "turn_seconds", type: "number", min: 5, max: 600, value: 30 })),
      h("label", {}, h("span", {}, t("lobby.bot_pace")),
        h("select", { name: "bot_pace", "data-testid": "bot-pace" }, protocol.bot_paces.values.map((pace) =>
          h("option", { value: pace, selected: pace === protocol.bot_paces.default }, t(`pace.${pace}`))))),
      h("label.check", {}, h("input", { type: "checkbox", name: "private" }),
        h("span", {}, t("lobby.private"))),
      h("label.check", {}, h("input", { type: "checkbox", name: "spectator_chat", checked: true }),
        h("span", {}, t("chat.spectators_option")))),
    ratedControl(),
    h("details.house-rules", {}, h("summary", {}, t("lobby.house_rules")), rules),
    h("button.btn.primary.big", { type: "submit", "data-testid": "create", disabled: !me },
      t("lobby.create")));
  // Draft keys "create:<name>"; a house rule's also carries the variant it belongs to.
  const keyOf = (el) => el.name && `create:${el.name.startsWith("opt-") ? `${variant.value}:` : ""}${el.name}`;
  keepDraft(form, keyOf);
  restoreDraft(form, keyOf);
  if (form.elements.rated.checked) form.elements.private.disabled = true;
  let flags = {};
  let presets = null;
  const showRules = async () => {
    flags = (await variantSpecs())[variant.value];
    fill(rules, Object.entries(flags).map(([name, spec]) => flagControl(name, spec)));
    restoreDraft(rules, keyOf);
    presets = "preset" in flags ? (await presetSets())[variant.value] : null;
    wirePresets(rules, flags, presets);
  };
  variant.addEventListener("change", showRules);
  showRules().catch(ctx.toast);
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const data = form.elements;
    const body = {
      name: data.name.value.trim() || t("lobby.table"),
      variant: variant.value,
      turn_seconds: Number(data.turn_seconds.value) || undefined,
      private: data.private.checked,
      spectator_chat: data.spectator_chat.checked,
      bot_pace: data.bot_pace.value,
      options: changedOptions(form, flags, presetBase(form, presets)),
      ...(data.rated.checked ? { rated: true } : {}),
    };
    const button = form.querySelector("[data-testid=create]");
    if (button.disabled) return; // a request is in flight: a double click makes one table
    button.disabled = true;
    try {
      const table = await api("POST", "/api/tables", body);
      await api("PUT", `/api/tables/${table.id}/seats/0`);
      clearDraft("create:");
      ctx.navigate(`#/t/${table.id}`);
    } catch (exc) {
      ctx.toast(exc);
      button.disabled = !guest();
    }
  });
  return form;
}

/** The players seated at a lobby row's table with their ratings in its variant. */
function seatedRatings(table) {
  const rated = table.seats.filter((s) => s.kind === "human" && s.rating);
  return rated.length ? h("span.row-ratings", {}, rated.map((s) => h("span.row-player", {}, s.name, " ",
    ratingMark(s.rating)))) : null;
}

function tableRow(table) {
  const free = table.seats.filter((s) => s.kind === "empty").length;
  return h("li.table-row", { "data-testid": "table-row", "data-table-id": table.id },
    h("div.table-row-main", {},
      h("strong", {}, table.name),
      h("span.tag", {}, t(`variant.${table.variant}`)),
      table.rated ? h("span.tag.rated-tag", { "data-testid": "rated-tag", title: t("rated.hint") }, t("rated.label")) : null,
      h("span.muted", {}, t("lobby.target", { target: table.options.target_score })),
      houseRulesLine(table.variant, table.options),
      seatedRatings(table)),
    h("div.seat-dots", { title: t("lobby.free_seats", { count: free }) },
      table.seats.map((s) => h(`span.dot.${s.kind}`, { title: s.name || t(`seat.${s.kind}`) }))),
    h("span.muted.free", {}, t("lobby.free_seats", { count: free })),
    h("a.btn", { href: `#/t/${table.id}`, "data-testid": "join" }, t("lobby.join")));
}

/** The list's pages: the cursor of the page shown, and those of the pages before it. */
function pager(refresh) {
  const state = { cursor: null, before: [] };
  const turn = (next) => {
    if (next === undefined) {
      state.cursor = state.before.pop() ?? null;
    } else {
      state.before.push(state.cursor);
      state.cursor = next;
    }
    refresh();
  };
  state.query = () => `/api/tables?limit=${PAGE_SIZE}` +
    (state.cursor === null ? "" : `&cursor=${state.cursor}`);
  // Shown once there is more than one page: the total, and buttons to turn pages.
  state.controls = (page) => (page.next_cursor === null && !state.before.length ? null
    : h("div.row.pager", {},
      h("span.muted", { "data-testid": "table-count" },
        t("lobby.table_count", { count: page.total })),
      h("button.btn", { type: "button", "data-testid": "previous-page",
                        disabled: !state.before.length, onclick: () => turn() },
        t("lobby.previous_page")),
      h("button.btn", { type: "button", "data-testid": "next-page",
                        disabled: page.next_cursor === null, onclick: () => turn(page.next_cursor) },
        t("lobby.next_page"))));
  return state;
}

export function renderLobby(root, ctx) {
  const list = h("ul.table-list");
  const controls = h("div");
  const tables = h("section.card.tables", {},
    h("div.card-head", {}, h("h2", {}, t("lobby.open_tables")),
      h("span.muted.live", {}, t("lobby.live"))), list, controls);
  const refresh = async () => {
    try {
      const page = await api("GET", pages.query());
      fill(list, page.tables.length ? page.tables.map(tableRow)
        : h("li.empty", {}, t("lobby.no_tables")));
      fill(controls, pages.controls(page));
    } catch (exc) {
      fill(list, h("li.empty", {}, t("lobby.unreachable")));
    }
  };
  const pages = pager(refresh);
  const render = () => fill(root, h("section#lobby", {},
    h("div.hero", {}, h("div", {}, h("h1", {}, t("app.title")), h("p", {}, t("lobby.tagline"))),
      h("div.hero-fan", { "aria-hidden": "true" },
        HERO_CARDS.map((card, i) => h("div.hero-card", { style: `--i:${i}` }, cardSvg(card))))),
    h("div.lobby-grid", {},
      h("div.lobby-side", {}, nameCard(ctx, { onSaved: render }), playNowCard(ctx), createForm(ctx),
        h("a.card.scores-link", { href: "#/scores", "data-testid": "scores-link" }, t("sheets.link"))),
      tables)));
  render();
  refresh();
  const timer = setInterval(refresh, REFRESH_MS);
  const queue = showQueue();
  return () => {
    clearInterval(timer);
    queue();
  };
}
