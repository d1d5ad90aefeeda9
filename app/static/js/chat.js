// The table's chat (docs/protocol.md, `chat`): quick phrases, each shown in the reader's
// language, and short text from the seated players; spectators read it when the table's
// creator allowed it. Everything a player wrote is shown as text (h, textContent), never
// as HTML. Muting a player (per table) and turning the chat off are this browser's own
// choices, kept in localStorage.

import { h, fill, icon, storedFlag, storeFlag } from "./dom.js";
import { t } from "./i18n.js";
import { protocol } from "./protocol.js";
import { toast } from "./toasts.js";

const OFF_KEY = "belote.chatOff";
const MUTED_KEY = "belote.chatMuted"; // {tableId: [player ids]}, the most recent tables last
const TABLES_KEPT = 20; // tables whose mutes are remembered
const LINES_KEPT = 50; // as many as a snapshot brings
const BUBBLE_MS = 4000; // a message stays this long by its speaker's plate

function mutedAt(tableId) {
  try {
    const all = JSON.parse(localStorage.getItem(MUTED_KEY) || "{}");
    return new Set(Array.isArray(all[tableId]) ? all[tableId] : []);
  } catch {
    return new Set();
  }
}

function keepMuted(tableId, muted) {
  let all = {};
  try { all = JSON.parse(localStorage.getItem(MUTED_KEY) || "{}") || {}; } catch { all = {}; }
  delete all[tableId];
  if (muted.size) all[tableId] = [...muted];
  const kept = Object.entries(all).slice(-TABLES_KEPT);
  localStorage.setItem(MUTED_KEY, JSON.stringify(Object.fromEntries(kept)));
}

/** A speech balloon, drawn (no emoji font needed). */
function chatIcon() {
  return icon("chat-icon", '<path d="M4 4h16a2 2 0 0 1 2 2v9a2 2 0 0 1-2 2H10l-5 4v-4H4a2 2 0 0 1-2-2V6a2 2 0 0 1 2-2z" fill="currentColor"/>');
}

/** A speaker struck through. */
function muteIcon() {
  return icon("mute-icon", '<path d="M3 9h4l5-4v14l-5-4H3z" fill="currentColor"/>'
    + '<path d="M16 9l5 6M21 9l-5 6" stroke="currentColor" stroke-width="2" stroke-linecap="round"/>');
}

/** What a message says, in the reader's language for a phrase. */
function said(line) {
  return line.phrase ? t(`chat.phrase.${line.phrase}`) : line.text;
}

/** The chat of one table page: `button` goes in the table's top bar; the panel and the
 *  bubbles are added to `section`. `say({text} | {phrase})` sends a message and is false
 *  while the socket is down. */
export function mountChat(section, { store, tableId, me, say }) {
  const state = { lines: [], open: false, unread: 0, off: storedFlag(OFF_KEY, false),
    muted: mutedAt(tableId), frame: null, shape: "", sent: null };
  const maxText = () => (protocol.chat ? protocol.chat.max_text : Infinity);

  const label = h("span.chat-label");
  const badge = h("span.chat-unread", { "data-testid": "chat-unread", hidden: true });
  const button = h("button.btn.ghost.chat-toggle", { type: "button", "data-testid": "chat-toggle",
    "aria-expanded": "false", "aria-controls": "chat-panel", onclick: () => setOpen(!state.open) },
  chatIcon(), label, badge);
  const log = h("ol.chat-log", { "data-testid": "chat-log", "aria-live": "polite" });
  const input = h("input.chat-input", { "data-testid": "chat-input", autocomplete: "off",
    enterkeyhint: "send", oninput: onInput });
  const counter = h("span.chat-count", { "data-testid": "chat-count" });
  const panel = h("aside#chat-panel", { "data-testid": "chat-panel", hidden: true });
  const bubbles = h("div.chat-bubbles", { "aria-hidden": "true" });
  section.append(panel, bubbles);

  function setOpen(open) {
    state.open = open;
    if (open) state.unread = 0;
    bubbles.replaceChildren(); // the table moves aside for the panel, or back
    render();
  }

  function setOff(off) {
    state.off = off;
    storeFlag(OFF_KEY, off);
    if (off) {
      state.unread = 0;
      bubbles.replaceChildren();
    }
    render();
  }

  function toggleMute(line) {
    if (state.muted.has(line.player)) state.muted.delete(line.player);
    else state.muted.add(line.player);
    keepMuted(tableId, state.muted);
    for (const bubble of bubbles.querySelectorAll(`[data-player="${CSS.escape(line.player)}"]`)) bubble.remove();
    render();
  }

  /** Keep the text to the server's length, counted in characters as it counts them. */
  function onInput() {
    const chars = [...input.value];
    if (chars.length > maxText()) input.value = chars.slice(0, maxText()).join("");
    showCount();
  }

  function showCount() {
    const max = maxText();
    const used = [...input.value].length;
    counter.textContent = `${used}/${max}`;
    counter.classList.toggle("full", used >= max);
  }

  function send(message) {
    if (!say(message)) toast({ code: "chat_offline" });
  }

  function sendText(event) {
    event.preventDefault();
    const text = input.value.trim();
    if (!text) return;
    state.sent = input.value;
    send({ text });
  }

  /** A message arrived: listed, counted while the panel is closed, shown by its speaker. */
  function receive(line) {
    state.lines = [...state.lines, line].slice(-LINES_KEPT);
    const mine = me && line.player === me.id;
    if (mine && line.text !== undefined && state.sent !== null && input.value === state.sent) {
      input.value = ""; // sent and accepted; a refused text stays in the box
      state.sent = null;
      showCount();
    }
    if (state.off || state.muted.has(line.player)) return;
    if (!state.open && !mine) state.unread += 1;
    bubble(line);
  }

  /** A short balloon by the speaker's plate for a few seconds; the plates are redrawn
   *  with every frame, so the balloon lives in a layer of its own above them. */
  function bubble(line) {
    const plate = section.querySelector(`[data-plate="${line.seat}"]`);
    if (!plate) return;
    for (const old of bubbles.querySelectorAll(`[data-seat="${line.seat}"]`)) old.remove();
    const below = plate.classList.contains("pos-top"); // under the top plate, above the others
    const box = section.getBoundingClientRect();
    const at = plate.getBoundingClientRect();
    const item = h("div.chat-bubble", { "data-seat": line.seat, "data-player": line.player },
      h("span", {}, said(line)));
    const x = at.left + at.width / 2 - box.left;
    item.style.left = `${Math.round(x)}px`;
    if (below) item.style.top = `${Math.round(at.bottom - box.top + 6)}px`;
    else item.style.bottom = `${Math.round(box.bottom - at.top + 6)}px`;
    bubbles.append(item);
    // Kept inside the table: a balloon by a plate at the edge shifts inwards.
    const drawn = item.getBoundingClientRect();
    const shift = Math.min(0, box.right - 8 - drawn.right) || Math.max(0, box.left + 8 - drawn.left);
    if (shift) item.style.left = `${Math.round(x + shift)}px`;
    setTimeout(() => item.remove(), BUBBLE_MS);
  }

  /** Who may write here: the seated players; who may read: they, and spectators if the
   *  table's creator let them. */
  const seated = () => state.frame && state.frame.seat !== null && state.frame.seat !== undefined;
  const readable = () => seated() || Boolean(state.frame && state.frame.table.spectator_chat);

  function lineItem(line) {
    const mine = me && line.player === me.id;
    return h(`li.chat-line${mine ? ".mine" : ""}${line.phrase ? ".phrase" : ""}`,
      { "data-player": line.player, "data-seat": line.seat },
      h("span.chat-name", {}, line.name),
      h("span.chat-text", {}, said(line)),
      mine ? null : h("button.chat-mute", { type: "button", "data-testid": "chat-mute",
        title: t("chat.mute", { name: line.name }), "aria-label": t("chat.mute", { name: line.name }),
        onclick: () => toggleMute(line) }, muteIcon()));
  }

  /** The players this browser muted here, each with a button to hear them again. */
  function mutedRow() {
    const names = new Map();
    for (const line of state.lines) if (state.muted.has(line.player)) names.set(line.player, line);
    if (!names.size) return null;
    return h("div.chat-muted", {}, h("span.muted", {}, t("chat.muted")),
      [...names.values()].map((line) => h("button.btn.ghost.small", { type: "button",
        "data-testid": "chat-unmute", "data-player": line.player, onclick: () => toggleMute(line) },
      t("chat.unmute", { name: line.name }))));
  }

  function render() {
    label.textContent = t("chat.title");
    button.hidden = !readable();
    button.setAttribute("aria-expanded", String(state.open));
    button.classList.toggle("off", state.off);
    badge.hidden = state.off || !state.unread;
    badge.textContent = state.unread > 9 ? "9+" : String(state.unread);
    panel.hidden = !state.open || !readable();
    panel.setAttribute("aria-label", t("chat.title"));
    button.setAttribute("aria-label", t("chat.title")); // its label is hidden on a phone
    if (panel.hidden) return;
    const offSwitch = h("label.chat-off", {},
      h("input", { type: "checkbox", "data-testid": "chat-off", checked: state.off,
        onchange: (event) => setOff(event.target.checked) }),
      h("span", {}, t("chat.off")));
    const head = h("div.chat-head", {}, h("strong", {}, t("chat.title")), offSwitch,
      h("button.btn.ghost.chat-close", { type: "button", "data-testid": "chat-close",
        "aria-label": t("chat.close"), onclick: () => setOpen(false) }, "×"));
    if (state.off) {
      fill(panel, head, h("p.chat-note", { "data-testid": "chat-is-off" }, t("chat.is_off")));
      return;
    }
    const shown = state.lines.filter((line) => !state.muted.has(line.player));
    fill(log, shown.length ? shown.map(lineItem) : h("li.chat-empty.muted", {}, t("chat.empty")));
    const phrases = protocol.chat ? protocol.chat.phrases : [];
    fill(panel, head, log, mutedRow(),
      seated()
        ? [h("div.chat-phrases", { role: "group", "aria-label": t("chat.phrases") },
          phrases.map((id) => h("button.btn.chat-phrase", { type: "button", "data-phrase": id,
            onclick: () => send({ phrase: id }) }, t(`chat.phrase.${id}`)))),
        h("form.chat-form", { onsubmit: sendText }, input, counter,
          h("button.btn.primary", { type: "submit", "data-testid": "chat-send" }, t("chat.send")))]
        : h("p.chat-note", {}, t("chat.spectators_read")));
    input.placeholder = t("chat.placeholder");
    input.setAttribute("aria-label", t("chat.placeholder"));
    showCount();
    log.scrollTop = log.scrollHeight;
  }

  const unsubscribe = store.subscribe((change) => {
    if (change.kind !== "frame") return;
    const frame = change.frame;
    state.frame = frame;
    const shape = `${frame.seat}|${frame.table.spectator_chat}`; // who writes, who reads
    const chat = frame.event && frame.event.kind === "chat";
    if (frame.type === "snapshot") state.lines = (frame.chat || []).slice(-LINES_KEPT);
    else if (chat) receive(frame.event);
    else if (shape === state.shape) return; // nothing of the chat changed
    state.shape = shape;
    render();
  });

  function onKey(event) {
    if (event.key === "Escape" && state.open && !section.querySelector("dialog:modal")) setOpen(false);
  }
  /** The player menu's Mute (app/static/js/community.js): as the line's own button. */
  function onMute(event) {
    if (!state.muted.has(event.detail.player)) toggleMute({ player: event.detail.player });
  }
  document.addEventListener("keydown", onKey);
  window.addEventListener("belote:redraw", render);
  window.addEventListener("belote:mute", onMute);

  return {
    button,
    destroy() {
      unsubscribe();
      document.removeEventListener("keydown", onKey);
      window.removeEventListener("belote:redraw", render);
      window.removeEventListener("belote:mute", onMute);
      panel.remove();
      bubbles.remove();
    },
  };
}
