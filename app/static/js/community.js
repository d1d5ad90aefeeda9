// The community in the client (issue #32; docs/community.md): the personal channel
// (/api/me/ws) and its notices, a player's menu (at the table and on the profile), the
// reputation's mark, and the word said when a player leaves a match in progress.

import { api, guest, isAccount } from "./api.js";
import { h, fill } from "./dom.js";
import { t } from "./i18n.js";
import { protocol } from "./protocol.js";
import { findWithPartner } from "./quickplay.js";
import { notify, toast } from "./toasts.js";

const RETRY_MS = 5000; // before the channel is opened again after a cut
const LAST_TABLE_KEY = "belote.lastTable"; // the table this tab showed last: where to invite
export const COMMUNITY_CHANGED = "belote:community"; // a notice came (its detail)
export const CHANNEL_OPEN = "belote:channel-open"; // the channel is (again) open: notices missed while cut

let channel = null;
let channelToken = null;
let retry = null;
let context = { navigate: (hash) => { location.hash = hash; }, toast };
const shown = new Set(); // the kept notices shown on this page (a channel opened again resends them)
const announced = new Set(); // the tournament tables a card already showed
let wasOpen = false; // a channel of this page was open before: a welcome is a return

/** The table this tab showed last (a seated player invites to it). */
export function rememberTable(tableId) {
  sessionStorage.setItem(LAST_TABLE_KEY, tableId);
}

export function lastTable() {
  return sessionStorage.getItem(LAST_TABLE_KEY);
}

/** Open the player's channel (again, for a new token); none without a player. */
export function startChannel(ctx) {
  context = ctx;
  const me = guest();
  if (channel && me && channelToken === me.token) return;
  stopChannel();
  if (!me) return;
  channelToken = me.token;
  const scheme = location.protocol === "https:" ? "wss" : "ws";
  const socket = new WebSocket(`${scheme}://${location.host}/api/me/ws`);
  channel = socket;
  socket.addEventListener("open", () => socket.send(JSON.stringify(
    { type: "hello", protocol: protocol.version, token: me.token })));
  socket.addEventListener("message", (event) => {
    let message;
    try { message = JSON.parse(event.data); } catch { return; }
    if (message.type === "ping") socket.send(JSON.stringify({ type: "pong" }));
    else if (message.type === "welcome") {
      if (wasOpen) window.dispatchEvent(new CustomEvent(CHANNEL_OPEN)); // back after a cut
      wasOpen = true;
    }
    else if (message.type === "notice") showNotice(message);
  });
  socket.addEventListener("close", (event) => {
    if (channel !== socket) return; // replaced or stopped on purpose
    channel = null;
    if ((protocol.final_close_codes || []).includes(event.code)) return;
    retry = setTimeout(() => startChannel(context), RETRY_MS);
  });
}

export function stopChannel() {
  clearTimeout(retry);
  const open = channel;
  channel = null;
  channelToken = null;
  if (open) open.close();
}

function noticeBox() {
  let box = document.getElementById("notices");
  if (!box) {
    box = h("div#notices", { "aria-live": "polite" });
    document.body.append(box);
  }
  return box;
}

/** One notice: a card with its buttons (an invitation, a friend request, a partner
 *  waiting in the queue), or a short word.  A kept one (with an `id`: told while this
 *  player was offline) is shown once per page, and dismissed once answered or said. */
export function showNotice(notice) {
  if (notice.id != null) {
    if (shown.has(notice.id)) return;
    shown.add(notice.id);
  }
  const who = notice.player ? notice.player.name : "";
  const said = (text) => {
    notify(text);
    dismiss(notice);
  };
  if (notice.kind === "friend_online") {
    said(t(notice.online ? "community.friend_online" : "community.friend_offline", { name: who }));
  } else if (notice.kind === "queue_seated") {
    said(t("community.queue_seated"));
  } else if (notice.kind === "friend_request") {
    if (notice.friends) said(t("community.friends_now", { name: who }));
    else if (notice.id == null) friendCard(notice);
    else stillAsked(notice);
  } else if (notice.kind === "invitation") {
    card(notice, t("community.invitation", { name: who, variant: t(`variant.${notice.variant}`) }), [
      [t("community.join"), () => join(notice.table)],
      [t("community.decline"), () => decline(notice)]]);
  } else if (notice.kind === "invitation_declined") {
    said(t("community.invitation_declined", { name: who }));
  } else if (notice.kind === "queue_partner") {
    card(notice, t(notice.rated ? "community.partner_prompt_rated" : "community.partner_prompt",
      { name: who, variant: t(`variant.${notice.variant}`) }), [
      [t("community.accept"), () => findWithPartner(context, notice.player.id, notice.variant, notice.rated)],
      [t("community.decline"), async () => {}]]);
  } else if (notice.kind === "standings") {
    standingsNotice(notice);
  }
  window.dispatchEvent(new CustomEvent(COMMUNITY_CHANGED, { detail: notice }));
}

function friendCard(notice) {
  const asker = notice.player;
  card(notice, t("community.friend_request", { name: asker.name }), [
    [t("community.accept"), () => api("POST", "/api/friends", { player: asker.id })],
    [t("community.decline"), () => api("DELETE", `/api/friends/${encodeURIComponent(asker.id)}`)]]);
}

/** A kept friend request is shown only while it is still unanswered (it may have been
 *  accepted on the Friends page, or withdrawn, since): else it is dismissed unseen. */
async function stillAsked(notice) {
  try {
    const { incoming } = await api("GET", "/api/friends");
    if (incoming.some((p) => p.id === notice.player.id)) friendCard(notice);
    else dismiss(notice);
  } catch {
    // Unknown for now: kept for the next page.
  }
}

/** A kept notice answered or said: not sent again (`DELETE /api/me/notices/{id}`). */
function dismiss(notice) {
  if (notice.id == null) return;
  api("DELETE", `/api/me/notices/${notice.id}`).catch(() => {}); // at worst, shown once more
}

function card(notice, text, buttons) {
  const item = h(`div.notice-card.card`, { role: "alertdialog", "data-testid": `notice-${notice.kind}`,
    "aria-label": text });
  const actions = buttons.map(([label, act], index) => h(`button.btn${index === 0 ? ".primary" : ""}`,
    { type: "button", "data-testid": `notice-${index === 0 ? "yes" : "no"}`,
      onclick: async () => {
        item.remove();
        dismiss(notice);
        try { await act(); } catch (exc) { toast(exc); }
        window.dispatchEvent(new CustomEvent(COMMUNITY_CHANGED, { detail: notice }));
      } }, label));
  fill(item, h("p", {}, text), h("div.notice-actions", {}, actions));
  noticeBox().append(item);
}

/** A tournament moved on: a card the first time the player's table of a round is told (unless
 * that table is open already), a word with the rank at its end; its page reads it again. */
function standingsNotice(notice) {
  if (notice.status === "finished") {
    notify(notice.rank ? t("tournament.over_rank", { name: notice.name, rank: notice.rank })
      : t("tournament.over", { name: notice.name }));
  } else if (notice.table && !announced.has(notice.table)) {
    announced.add(notice.table);
    if (location.hash !== `#/t/${notice.table}`) {
      card(notice, t("tournament.table_ready", { name: notice.name, round: notice.round }), [
        [t("tournament.your_table"), async () => context.navigate(`#/t/${notice.table}`)],
        [t("tournament.later"), async () => {}]]);
    }
  }
}

/** Tell the inviter, while the invitation stands; a table gone since has nobody to tell. */
async function decline(notice) {
  const path = `/api/tables/${encodeURIComponent(notice.table)}/invitations/${encodeURIComponent(notice.player.id)}`;
  await api("DELETE", path).catch(() => {});
}

/** Sit at the first empty seat of an invitation's table, then open it. */
async function join(tableId) {
  const table = await api("GET", `/api/tables/${encodeURIComponent(tableId)}`);
  const seat = table.seats.findIndex((held) => held.kind === "empty");
  if (seat < 0) throw { code: "seat_taken" };
  await api("PUT", `/api/tables/${encodeURIComponent(tableId)}/seats/${seat}`);
  context.navigate(`#/t/${tableId}`);
}

/** A reputation (`{value, finished, left}`) as a small mark with its words; `short`: its
 *  value alone ("92%"), the words in its title and label (a seat's plate). */
export function reputationMark(reputation, tag = "span.reputation", short = false) {
  if (!reputation) return null;
  const level = reputation.value >= 80 ? "good" : reputation.value >= 50 ? "fair" : "low";
  const words = t("community.reputation", { value: reputation.value });
  const title = t("community.reputation_title", { finished: reputation.finished, left: reputation.left });
  return h(`${tag}.rep-${level}`, { "data-testid": "reputation", "data-reputation": reputation.value,
    title: short ? `${words}: ${title}` : title, "aria-label": short ? words : null },
  short ? `${reputation.value}%` : words);
}

const REPUTATION_MS = 300000; // a player's reputation is read again after five minutes
const reputations = new Map(); // player id -> {at, promise of the reputation or null}

/** A player's reputation (`GET /api/players/{id}`), read once per five minutes per page. */
export function reputationOf(playerId) {
  const known = reputations.get(playerId);
  if (known && Date.now() - known.at < REPUTATION_MS) return known.promise;
  const entry = { at: Date.now(), value: undefined };
  entry.promise = api("GET", `/api/players/${encodeURIComponent(playerId)}`).then(
    (profile) => { entry.value = profile.reputation || null; return entry.value; },
    () => { reputations.delete(playerId); return null; });
  reputations.set(playerId, entry);
  return entry.promise;
}

/** An account seat's reputation on its plate: drawn now if read already, else filled in
 *  once read (the plates are drawn anew with each frame). */
export function plateReputation(playerId) {
  const known = reputations.get(playerId);
  const tag = "span.plate-rep";
  if (known && known.value) return reputationMark(known.value, tag, true);
  reputationOf(playerId).then((reputation) => {
    if (!reputation) return;
    for (const slot of document.querySelectorAll(`.plate-rep-slot[data-player="${CSS.escape(playerId)}"]`)) {
      slot.replaceWith(reputationMark(reputation, tag, true));
    }
  });
  return h("span.plate-rep-slot", { "data-player": playerId, hidden: true });
}

/** Report a player: a reason and a few words, kept for the operators. */
function reportDialog(player, match) {
  const reasons = ["cheating", "abuse", "leaving", "spam", "other"];
  const reason = h("select", { name: "reason", "data-testid": "report-reason" },
    reasons.map((value) => h("option", { value }, t(`community.reason.${value}`))));
  const text = h("textarea", { name: "text", maxlength: 1000, rows: 3, "data-testid": "report-text" });
  const dialog = h("dialog.dialog.report-dialog", { "data-testid": "report-dialog",
    onclose: () => dialog.remove() },
  h("form", { method: "dialog", onsubmit: async (event) => {
    event.preventDefault();
    try {
      await api("POST", "/api/reports", { player: player.id, match: match || null, reason: reason.value,
        text: text.value });
      notify(t("community.reported", { name: player.name }));
      dialog.close();
    } catch (exc) {
      toast(exc);
    }
  } },
  h("h2", {}, t("community.report_title", { name: player.name })),
  h("label", {}, h("span", {}, t("community.report_reason")), reason),
  h("label", {}, h("span", {}, t("community.report_text")), text),
  h("div.dialog-actions", {},
    h("button.btn", { type: "button", onclick: () => dialog.close() }, t("community.cancel")),
    h("button.btn.primary", { type: "submit", "data-testid": "report-send" }, t("community.send")))));
  document.body.append(dialog);
  dialog.showModal();
}

let shared = null; // the one player menu of the page, moved to whichever toggle opened it

/** The page's player menu, made once, with its closing listeners. */
function sharedMenu() {
  if (shared && shared.menu.isConnected) return shared;
  const menu = h("ul.player-menu", { role: "menu", "data-testid": "player-menu" });
  document.body.append(menu);
  shared = { menu, toggle: null };
  const close = () => {
    menu.classList.remove("open");
    if (shared.toggle) shared.toggle.setAttribute("aria-expanded", "false");
  };
  shared.close = close;
  menu.addEventListener("click", (event) => { if (event.target.closest("button")) close(); });
  document.addEventListener("pointerdown", (event) => {
    if (!menu.contains(event.target) && !(shared.toggle && shared.toggle.contains(event.target))) close();
  });
  document.addEventListener("keydown", (event) => {
    if (event.key === "Escape" && menu.classList.contains("open")) {
      close();
      if (shared.toggle) shared.toggle.focus();
    }
  });
  window.addEventListener("hashchange", close);
  return shared;
}

/** The items of `player`'s menu: its reputation (read now), Add friend, Invite (to the
 *  table this tab showed last), Mute (at a table), Block, Report. */
function menuItems(player, { mute, match }) {
  const account = isAccount();
  const reputation = h("li.menu-note", { "data-testid": "menu-reputation" }, "…");
  reputationOf(player.id).then((found) => fill(reputation,
    found ? reputationMark(found) : t("community.no_reputation")));
  const act = (request, done) => async () => {
    try {
      await request();
      notify(done);
    } catch (exc) {
      toast(exc);
    }
  };
  const item = (key, testid, onclick) => h("li", {}, h("button", { type: "button", role: "menuitem",
    "data-testid": testid, onclick }, t(key)));
  const invite = lastTable();
  return [
    reputation,
    account ? item("community.add_friend", "menu-friend", act(() => api("POST", "/api/friends",
      { player: player.id }), t("community.asked", { name: player.name }))) : null,
    invite && invite !== match ? item("community.invite", "menu-invite", act(() => api("POST",
      `/api/tables/${encodeURIComponent(invite)}/invitations`, { player: player.id }),
    t("community.invited", { name: player.name }))) : null,
    mute ? item("community.mute", "menu-mute", () => mute(player.id)) : null,
    account ? item("community.block", "menu-block", act(() => api("POST", "/api/blocks", { player: player.id }),
      t("community.blocked", { name: player.name }))) : null,
    account ? item("community.report", "menu-report", () => reportDialog(player, match)) : null,
  ];
}

/** The button that opens a player's menu (null for oneself, or without a player).
 *  `player`: `{id, name}`; `mute(id)`: the table's chat mute, if any; `match`: the table
 *  the player is at. */
export function playerMenu(player, { mute = null, match = null } = {}) {
  const me = guest();
  if (!me || !player.id || player.id === me.id) return null;
  const label = t("community.menu", { name: player.name });
  return h("button.player-menu-toggle", { type: "button", "aria-haspopup": "menu", "aria-expanded": "false",
    "data-testid": "player-menu-toggle", title: label, "aria-label": label,
    onclick: (event) => {
      const { menu, close } = sharedMenu();
      const toggle = event.currentTarget;
      if (menu.classList.contains("open") && shared.toggle === toggle) {
        close();
        return;
      }
      shared.toggle = toggle;
      fill(menu, menuItems(player, { mute, match }));
      menu.classList.add("open"); // shown first, so that its size is known
      const box = toggle.getBoundingClientRect();
      const width = document.documentElement.clientWidth;
      const left = Math.min(box.left, width - menu.offsetWidth - 4);
      // Below the toggle, or above it when the screen ends first (a plate at the bottom).
      const below = box.bottom + 4 + menu.offsetHeight <= window.innerHeight;
      const top = below ? box.bottom + 4 : Math.max(4, box.top - 4 - menu.offsetHeight);
      menu.style.left = `${Math.max(4, left) + window.scrollX}px`;
      menu.style.top = `${top + window.scrollY}px`;
      toggle.setAttribute("aria-expanded", "true");
    } }, "⋯");
}

/** The player menu's Mute at a table: its chat hides the player (app/static/js/chat.js,
 *  as the line's own mute button). */
export function muteAtTable(player) {
  window.dispatchEvent(new CustomEvent("belote:mute", { detail: { player } }));
}

/** Say it when a player leaves a match in progress (a bot takes the seat): leaving costs
 *  reputation (docs/community.md). */
export function noticeLeavers(before, frame) {
  if (!before || !before.table || before.table.status !== "playing" || frame.table.status !== "playing") return;
  frame.table.seats.forEach((held, seat) => {
    const was = before.table.seats[seat];
    if (was.kind === "human" && held.kind === "bot") notify(t("community.left_match", { name: was.name }));
  });
}
