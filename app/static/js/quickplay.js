// Play now, in the lobby: a started table against bots in one click (POST /api/quickplay),
// or the queue for people (POST /api/queue), polled every second until a table is made.
// The wait outlives a redraw of the lobby (a language change) and a reload: the queue is
// on the server, and polling it is also what keeps the player's place there.

import { api, guest, isAccount } from "./api.js";
import { h, storedFlag, storeFlag } from "./dom.js";
import { t } from "./i18n.js";
import { protocol } from "./protocol.js";

const VARIANT_KEY = "belote.playVariant";
const RATED_KEY = "belote.playRated"; // an account's Rated switch, remembered
const QUEUED_KEY = "belote.queued"; // this tab waits for players (sessionStorage)
const FOUND_KEY = "belote.queueTable"; // the table the queue found for this tab
const POLL_MS = 1000; // the server drops a player who has not asked for 15 s
const TICK_MS = 250; // the counter's redraw
const SEATS = 4;

// The wait, shared by every drawing of the card: null, or {waited, at (local ms when
// `waited` was read), wait (seconds until bots), players}.
let waiting = null;
let poller = null;
let epoch = 0; // bumped when the wait ends: an answer to an older request is ignored
let ctxOf = null; // the last lobby's context: where a found table is opened
let panel = null; // the card on screen, while the lobby shows it

function storedVariant() {
  const { values, default: preset } = protocol.variants;
  const stored = localStorage.getItem(VARIANT_KEY);
  return values.includes(stored) ? stored : preset;
}

function clock(seconds) {
  const s = Math.max(0, Math.floor(seconds));
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, "0")}`;
}

/** Take in an answer of /api/queue: wait on, open the table, or stop and say why. */
function follow(answer) {
  if (answer.status === "waiting") {
    waiting = { waited: answer.waited, at: Date.now(), wait: answer.deadline - answer.since,
      players: answer.players };
    sessionStorage.setItem(QUEUED_KEY, "1");
    poller ??= setTimeout(poll, POLL_MS);
  } else {
    stop();
    if (answer.status === "seated") {
      sessionStorage.setItem(FOUND_KEY, answer.table_id);
      ctxOf.navigate(`#/t/${answer.table_id}`);
    }
    else if (answer.status === "failed") ctxOf.toast(answer);
  }
  draw();
}

function stop() {
  waiting = null;
  epoch += 1;
  clearTimeout(poller);
  poller = null;
  sessionStorage.removeItem(QUEUED_KEY);
}

/** `request()` for the current wait; its answer is dropped if the wait ended meanwhile. */
async function current(request) {
  const asked = epoch;
  const answer = await request();
  return asked === epoch ? answer : null;
}

/** One poll, the next one only after its answer: a slow server gets no pile of them. */
async function poll() {
  poller = null;
  try {
    const answer = await current(() => api("GET", "/api/queue"));
    if (answer) follow(answer);
  } catch (exc) {
    if (exc.status === 404 || exc.status === 401) { // dropped, or the guest is gone
      stop();
      draw();
      if (exc.status === 404) ctxOf.toast(exc);
    }
    // Anything else (the network, a restart): the next poll tries again.
  } finally {
    if (waiting) poller ??= setTimeout(poll, POLL_MS);
  }
}

async function cancel() {
  try {
    const answer = await api("DELETE", "/api/queue");
    if (answer.status === "left") {
      stop();
      draw();
    } else {
      follow(answer); // a table was made just before: go to it
    }
  } catch (exc) {
    ctxOf.toast(exc);
  }
}

/** Show the wait (or not) on the card: its counter, players and when bots come. */
function draw() {
  if (!panel || !panel.isConnected) return;
  const parts = panel.parts;
  panel.classList.toggle("searching", Boolean(waiting));
  parts.wait.hidden = !waiting;
  parts.buttons.hidden = Boolean(waiting);
  parts.variant.disabled = Boolean(waiting); // the wait is for the variant it began with
  parts.rated.disabled = Boolean(waiting) || !isAccount();
  if (!waiting) return;
  const elapsed = waiting.waited + (Date.now() - waiting.at) / 1000;
  const left = Math.ceil(waiting.wait - elapsed);
  parts.timer.textContent = clock(elapsed);
  parts.players.textContent = t("quick.players", { count: Math.min(SEATS, waiting.players) });
  parts.bots.textContent = left > 0 ? t("quick.bots_in", { seconds: left }) : t("quick.bots_now");
}

/** The lobby's Play now card: variant (remembered), the bots' level, the two buttons and,
 *  while waiting for people, the wait with its counter and a cancel button. */
export function playNowCard(ctx) {
  ctxOf = ctx;
  const me = guest();
  const variant = h("select", { name: "variant", "data-testid": "quick-variant" },
    protocol.variants.values.map((name) => h("option", { value: name, selected: name === storedVariant() },
      t(`variant.${name}`))));
  variant.addEventListener("change", () => localStorage.setItem(VARIANT_KEY, variant.value));
  // Rated play is for accounts: a guest sees the switch off, with why.
  const rated = h("input", { type: "checkbox", "data-testid": "quick-rated",
    checked: isAccount() && storedFlag(RATED_KEY, false), disabled: !isAccount(),
    onchange: () => storeFlag(RATED_KEY, rated.checked) });
  const ratedBody = () => (rated.checked ? { rated: true } : {});
  const { values: levels, default: preset } = protocol.levels;
  const level = h("select", { name: "level", "data-testid": "quick-level" },
    levels.map((name) => h("option", { value: name, selected: name === preset }, t(`level.${name}`))));
  /** A button that runs `request` once at a time (a double click makes one table). */
  const once = (request) => async (event) => {
    const button = event.currentTarget;
    if (button.disabled) return;
    button.disabled = true;
    try {
      await request();
    } catch (exc) {
      ctx.toast(exc);
    }
    button.disabled = !guest();
  };
  const play = once(async () => {
    const table = await api("POST", "/api/quickplay", { variant: variant.value, level: level.value, ...ratedBody() });
    ctx.navigate(`#/t/${table.id}`);
  });
  const find = once(async () => follow(await api("POST", "/api/queue", { variant: variant.value, ...ratedBody() })));
  const parts = {
    variant, rated,
    buttons: h("div.quick-buttons", {},
      h("button.btn.primary.big", { type: "button", "data-testid": "play-now", disabled: !me, onclick: play },
        t("quick.play")),
      h("button.btn.big", { type: "button", "data-testid": "find-players", disabled: !me, onclick: find },
        t("quick.find")),
      // Greyed until there is a name to play under: say so where the buttons are.
      me ? null : h("p.muted.quick-needs-name", { "data-testid": "quick-needs-name" }, t("quick.needs_name"))),
    timer: h("span.queue-timer", { "data-testid": "queue-timer" }),
    players: h("span", { "data-testid": "queue-players" }),
    bots: h("span"),
  };
  parts.wait = h("div.queue-wait", { "data-testid": "queue-wait", role: "status", hidden: true },
    h("div.queue-head", {}, h("span.spinner", { "aria-hidden": "true" }),
      h("strong", {}, t("quick.searching")), parts.timer),
    // Two lines, no separator: a "·" dangled at the end of a wrapped line.
    h("p.queue-detail", {}, h("span.queue-line", {}, parts.players), h("span.queue-line", {}, parts.bots)),
    h("button.btn", { type: "button", "data-testid": "queue-cancel", onclick: cancel }, t("quick.cancel")));
  panel = h("section#play-now.card", {},
    h("h2", {}, t("quick.title")),
    h("p.muted", {}, t("quick.hint")),
    h("div.grid", {},
      h("label", {}, h("span", {}, t("lobby.variant")), variant),
      h("label", {}, h("span", {}, t("setup.bot_level")), level)),
    h("label.check.rated-check", {}, rated, h("span", {}, t("rated.label")),
      isAccount() ? h("span.muted.small", {}, t("rated.quick_hint"))
        : h("a.rated-hint", { href: "#/login" }, t("rated.accounts_only"))),
    parts.buttons, parts.wait);
  panel.parts = parts;
  if (me && !waiting && sessionStorage.getItem(QUEUED_KEY)) resume();
  return panel;
}

/** "Find players with a partner": wait in the queue with `partner` (a friend who does the
 *  same, or who waits already and prompted this player: then its `variant` and `rated`),
 *  shown on the lobby's Play now card. */
export async function findWithPartner(ctx, partner, variant = storedVariant(), rated = false) {
  ctxOf = ctx;
  try {
    follow(await api("POST", "/api/queue", { variant, partner, ...(rated ? { rated } : {}) }));
    if (waiting) ctx.navigate("#/");
  } catch (exc) {
    ctx.toast(exc);
  }
}

/** After a reload of a tab that was waiting: the wait goes on, or the table found
 *  meanwhile opens. */
async function resume() {
  try {
    const answer = await current(() => api("GET", "/api/queue"));
    if (answer) follow(answer);
  } catch {
    sessionStorage.removeItem(QUEUED_KEY); // not in the queue any more
  }
}

/** Whether the queue made this table for this tab: its match starts by itself once its
 *  players are all there (nobody needs to press Start). */
export function foundByQueue(tableId) {
  return sessionStorage.getItem(FOUND_KEY) === tableId;
}

/** Keep the card's counter running while the lobby is shown; the returned function stops. */
export function showQueue() {
  draw();
  const timer = setInterval(draw, TICK_MS);
  return () => clearInterval(timer);
}
