// The app: header, settings, language, connection banner, and the hash router.

import { accountMenu, renderAccount } from "./account.js";
import { rememberTable, startChannel } from "./community.js";
import { GUEST_FORGOTTEN, api, forgetGuest, guest } from "./api.js";
import * as cards from "./cards.js";
import { h, fill, popupMenu, storedFlag, storeFlag } from "./dom.js";
import { LANGUAGES, language, onLanguageChange, preferredLanguage, setLanguage, t } from "./i18n.js";
import { nameCard, renderLobby } from "./lobby.js";
import { loadProtocol } from "./protocol.js";
import { renderRules } from "./rules.js";
import { SOUNDS_KEY, setSounds, soundsOn } from "./sounds.js";
import { TWO_TAP_KEY, twoTapDefault } from "./confirm-tap.js";
import { applyPace, paceOptions, setAnimationPace } from "./pace.js";
import { renderTable } from "./table.js";
import { toast } from "./toasts.js";

const app = document.getElementById("app");
const banner = document.getElementById("conn-banner");
let cleanup = null;
let onTable = false;
let routeToken = 0; // bumped by each route(): an older one still awaiting must not draw
let lastPage = "#/"; // the page before the log-in page: where a log-in or sign-up returns

/** Show a language or settings change: a table redraws in place (its socket stays). */
function refresh() {
  if (onTable) window.dispatchEvent(new Event("belote:redraw"));
  else route();
}

const ctx = {
  api, guest, t, cards, toast,
  navigate(hash) {
    if (location.hash === hash) route();
    else location.hash = hash;
  },
  refreshHeader: () => header(),
  forgetGuest, // the header and the page follow through GUEST_FORGOTTEN
  afterSignIn: () => ctx.navigate(lastPage),
  /** The banner shows a lost connection: not the first connect (the table says it is
   *  connecting), and a spinner only while the socket retries. */
  connection(status) {
    const visible = !["connected", "idle", "connecting"].includes(status);
    banner.hidden = !visible;
    banner.dataset.status = status;
    if (!visible) return;
    const text = t(`conn.${status}`);
    const retrying = status === "offline" || status === "moving";
    fill(banner, retrying ? h("span.spinner") : null, h("span", {}, text),
      status === "replaced" ? h("button.btn.ghost", { type: "button", onclick: () => route() }, t("conn.take_back")) : null);
  },
};

/** The header's texts and controls, rebuilt when the language or the guest changes. */
function header() {
  document.title = t("app.title");
  document.querySelector("[data-testid=nav-lobby]").textContent = t("nav.lobby");
  document.querySelector("[data-testid=nav-history]").textContent = t("nav.history");
  document.querySelector("[data-testid=nav-rules]").textContent = t("help.rules");
  document.querySelector("[data-testid=nav-tournaments]").textContent = t("tournament.nav");
  document.querySelector("[data-testid=nav-league]").textContent = t("league.nav");
  const problems = document.querySelector("[data-testid=nav-problems]");
  problems.textContent = t("problems.nav");
  problems.title = t("problems.nav"); // a sign alone on a narrower screen
  const board = document.querySelector("[data-testid=nav-leaderboard]");
  board.textContent = t("leaderboard.nav");
  board.title = t("leaderboard.nav");
  document.querySelector(".brand-name").textContent = t("app.title");
  for (const [id, key] of [["nav-watch", "community.watch_nav"], ["nav-friends", "community.friends"]]) {
    const link = document.querySelector(`[data-testid=${id}]`);
    link.textContent = t(key);
    link.title = t(key); // a sign alone on a phone
  }
  fill(document.getElementById("login-slot"), accountMenu(ctx,
    document.querySelector("[data-testid=account-toggle]"), document.getElementById("account-menu")));
  const select = document.getElementById("lang");
  select.setAttribute("aria-label", t("settings.language"));
  const menu = document.querySelector("[data-testid=settings-toggle]");
  menu.setAttribute("aria-label", t("settings.title"));
  menu.title = t("settings.title");
  fill(select, LANGUAGES.map((code) => h("option", { value: code, selected: code === language() }, t(`lang.${code}`))));
  for (const [id, key, fallback] of [["four-colour", "belote.fourColour", false], ["animations", "belote.animations", true],
    ["sounds", SOUNDS_KEY, soundsOn()], ["two-tap", TWO_TAP_KEY, twoTapDefault()]]) {
    const box = document.querySelector(`[data-testid=${id}]`);
    box.checked = storedFlag(key, fallback);
    box.closest("label").querySelector("span").textContent = t(`settings.${id}`);
  }
  const pace = document.querySelector("[data-testid=animation-pace]");
  pace.closest("label").querySelector("span").textContent = t("settings.animation-pace");
  fill(pace, paceOptions().map(({ value, label, selected }) => h("option", { value, selected }, label)));
  document.querySelector(".api-link").textContent = t("nav.api");
}

/** A page of a module loaded when first shown; null if another page was asked for meanwhile. */
async function lazyPage(kind, id, token) {
  const module = await import(kind === "leaderboard" ? "./leaderboard.js" : kind === "players" ? "./profile.js"
    : kind === "scores" ? "./scoresheet.js" : kind === "problems" ? "./problems.js"
    : kind === "tournaments" || kind === "league" ? "./tournaments.js"
    : kind === "watch" || kind === "friends" ? "./friends.js" : "./history.js");
  if (token !== routeToken) return null; // left during the import: a newer page owns #app
  const render = { history: module.renderHistory, match: module.renderMatch, replay: module.renderReplay,
    leaderboard: module.renderLeaderboard, players: module.renderProfile, scores: module.renderScores,
    problems: module.renderProblems,
    league: module.renderLeague, watch: module.renderWatch, friends: module.renderFriends,
    tournaments: /^(upcoming|running|finished)?$/.test(id) ? module.renderTournaments : module.renderTournament }[kind];
  return render(app, ctx, id);
}

// A profile is nobody's section: it is reached from the board, a table, a match.
const SECTIONS = { rules: "nav-rules", history: "nav-history", match: "nav-history", replay: "nav-history",
  scores: "nav-history", leaderboard: "nav-leaderboard", players: null, tournaments: "nav-tournaments",
  league: "nav-league", watch: "nav-watch", friends: "nav-friends", problems: "nav-problems" };

async function route() {
  const token = ++routeToken;
  if (cleanup) cleanup();
  cleanup = null;
  ctx.connection("idle");
  const hash = location.hash || "#/";
  const [, kind, id] = hash.match(/^#\/(tournaments|t|history|match|replay|rules|login|signup|leaderboard|players|scores|league|watch|friends|problems)?\/?([^/]*)/) || [];
  const section = kind in SECTIONS ? SECTIONS[kind] : kind === "login" || kind === "signup" ? null : "nav-lobby";
  if (kind !== "login" && kind !== "signup") lastPage = hash;
  for (const link of document.querySelectorAll("header nav a")) {
    link.classList.toggle("active", link.dataset.testid === section);
  }
  onTable = false;
  try {
    await loadProtocol(); // every page speaks it; a failed load is retried by the next route
    if (token !== routeToken) return;
    startChannel(ctx); // the player's notices, on every page (again for a new player)
    if ((kind === "t" && id) || kind === "scores") {
      if (!guest()) {
        fill(app, h("section.join-prompt", {}, nameCard(ctx, { onSaved: route,
          prompt: t(kind === "t" ? "lobby.name_to_join" : "sheets.name_first") })));
      } else if (kind === "scores") {
        const done = (await lazyPage(kind, id, token)) || null;
        if (token === routeToken) cleanup = done;
      } else {
        rememberTable(id);
        cleanup = renderTable(app, ctx, id);
        onTable = true;
      }
    } else if (kind === "rules") {
      cleanup = renderRules(app, ctx, id);
    } else if (kind === "login" || kind === "signup") {
      cleanup = renderAccount(app, ctx, kind);
    } else if (kind === "history" || kind === "leaderboard" || kind === "tournaments" || kind === "league" || kind === "watch" || kind === "friends" || kind === "problems" || ((kind === "match" || kind === "replay" || kind === "players") && id)) {
      const done = (await lazyPage(kind, id, token)) || null;
      if (token === routeToken) cleanup = done;
    } else {
      cleanup = renderLobby(app, ctx);
    }
  } catch (exc) {
    console.error(exc);
    if (token === routeToken) fill(app, h("div.card.error", {}, t("error.page")));
  }
}

function settingsToggles() {
  for (const [id, key] of [["four-colour", "belote.fourColour"], ["animations", "belote.animations"], ["two-tap", TWO_TAP_KEY]]) {
    document.querySelector(`[data-testid=${id}]`).addEventListener("change", (event) => {
      storeFlag(key, event.target.checked);
      refresh();
    });
  }
  document.querySelector("[data-testid=sounds]").addEventListener("change", (event) => setSounds(event.target.checked));
  document.querySelector("[data-testid=animation-pace]").addEventListener("change", (event) => setAnimationPace(event.target.value));
  document.getElementById("lang").addEventListener("change", (event) => setLanguage(event.target.value));
  // On a small screen the switches fold behind one labelled button, under the header.
  popupMenu(document.querySelector("[data-testid=settings-toggle]"), document.getElementById("settings"));
  popupMenu(document.querySelector("[data-testid=account-toggle]"), document.getElementById("account-menu"));
}

async function start() {
  loadProtocol().catch(() => {}); // while the language loads; route() reports a failure
  applyPace();
  settingsToggles();
  onLanguageChange(() => {
    header();
    refresh();
  });
  window.addEventListener("hashchange", route);
  window.addEventListener(GUEST_FORGOTTEN, (event) => {
    header();
    if (event.detail && event.detail.sessionEnded) { // logged out elsewhere, or a new password
      toast({ code: "session_ended" });
      if (location.hash !== "#/login") {
        location.hash = "#/login"; // routes through hashchange
        return;
      }
    }
    route();
  });
  await setLanguage(preferredLanguage()); // renders through onLanguageChange
}

start();
