// #/friends: the friends list (online, at which match), the requests either way, and
// for each friend "Find players with a partner" and Invite; #/watch: the public matches
// in progress (GET /api/tables?status=playing), friends' tables first.

import { api, isAccount } from "./api.js";
import { COMMUNITY_CHANGED, lastTable } from "./community.js";
import { h, fill } from "./dom.js";
import { findWithPartner } from "./quickplay.js";
import { profileLink, ratingMark } from "./rating.js";
import { errorBox } from "./replay.js";
import { notify } from "./toasts.js";

const WATCH_POLL_MS = 10000; // the Watch list is read again this often while shown

export function renderFriends(root, ctx) {
  const { t } = ctx;
  const page = h("section#friends.history-page", { "data-testid": "friends-page" });
  fill(root, page);
  if (!isAccount()) {
    fill(page, h("h1", {}, t("community.friends")),
      h("p.muted", {}, t("community.accounts_only")), h("a.btn.primary", { href: "#/login" }, t("community.log_in")),
      " ", h("a.btn.small.watch-link", { href: "#/watch" }, t("community.watch_title")));
    return () => {};
  }
  let gone = false;
  const load = () => api("GET", "/api/friends").then(
    (found) => { if (!gone) fill(page, friendsPage(ctx, found, load)); },
    (error) => { if (!gone) fill(page, errorBox(t, error)); });
  load();
  window.addEventListener(COMMUNITY_CHANGED, load);
  return () => {
    gone = true;
    window.removeEventListener(COMMUNITY_CHANGED, load);
  };
}

function friendsPage(ctx, found, reload) {
  const { t } = ctx;
  const act = (request) => async () => {
    try {
      await request();
    } catch (exc) {
      ctx.toast(exc);
    }
    reload();
  };
  const forget = (id) => act(() => api("DELETE", `/api/friends/${encodeURIComponent(id)}`));
  const table = lastTable();
  const friend = (f) => h("li.friend-row", { "data-testid": "friend", "data-online": f.online },
    h("span.presence-dot", { title: t(f.online ? "community.online" : "community.offline") }),
    h("span.friend-name", {}, profileLink(f.id, f.name)),
    h("span.muted.small", {}, f.table ? h("a", { href: `#/t/${f.table}` }, t("community.at_table"))
      : t(f.online ? "community.online" : "community.offline")),
    h("span.friend-actions", {},
      h("button.btn.small", { type: "button", "data-testid": "find-with-partner",
        onclick: () => findWithPartner(ctx, f.id) }, t("community.find_partner")),
      table ? h("button.btn.small", { type: "button", "data-testid": "invite-friend",
        onclick: act(() => api("POST", `/api/tables/${encodeURIComponent(table)}/invitations`, { player: f.id })
          .then(() => notify(t("community.invited", { name: f.name })))) },
      t("community.invite")) : null,
      h("button.btn.small.ghost", { type: "button", onclick: forget(f.id) }, t("community.remove"))));
  const request = (p, incoming) => h("li.friend-row", { "data-testid": incoming ? "incoming" : "outgoing" },
    h("span.friend-name", {}, profileLink(p.id, p.name)),
    h("span.friend-actions", {},
      incoming ? h("button.btn.small.primary", { type: "button", "data-testid": "accept",
        onclick: act(() => api("POST", "/api/friends", { player: p.id })) }, t("community.accept")) : null,
      h("button.btn.small.ghost", { type: "button", onclick: forget(p.id) },
        t(incoming ? "community.decline" : "community.cancel"))));
  return [
    h("h1", {}, t("community.friends")),
    h("p.muted", {}, t("community.friends_hint")),
    h("a.btn.small.watch-link", { href: "#/watch" }, t("community.watch_title")),
    found.friends.length ? h("ul.friend-list", {}, found.friends.map(friend))
      : h("p.history-empty", {}, t("community.no_friends")),
    found.incoming.length ? [h("h2", {}, t("community.incoming")),
      h("ul.friend-list", {}, found.incoming.map((p) => request(p, true)))] : null,
    found.outgoing.length ? [h("h2", {}, t("community.outgoing")),
      h("ul.friend-list", {}, found.outgoing.map((p) => request(p, false)))] : null,
  ];
}

export function renderWatch(root, ctx) {
  const { t } = ctx;
  const page = h("section#watch.history-page", { "data-testid": "watch-page" },
    h("p.history-loading", { "aria-busy": "true" }, t("history.loading")));
  fill(root, page);
  let gone = false;
  let friends = new Set();
  const load = async () => {
    try {
      if (isAccount()) friends = new Set((await api("GET", "/api/friends")).friends.map((f) => f.id));
      const found = await api("GET", "/api/tables?status=playing&limit=50");
      if (!gone) fill(page, watchPage(ctx, found, friends));
    } catch (error) {
      if (!gone) fill(page, errorBox(t, error));
    }
  };
  load();
  const timer = setInterval(load, WATCH_POLL_MS);
  return () => {
    gone = true;
    clearInterval(timer);
  };
}

function watchPage(ctx, found, friends) {
  const { t } = ctx;
  const row = (table) => {
    const ours = table.seats.some((held) => held.player && friends.has(held.player));
    const totals = table.totals || [0, 0];
    return h(`li.watch-row.card${ours ? ".friends" : ""}`, { "data-testid": "live-table", "data-table": table.id },
      h("div.watch-head", {},
        h(`span.variant-badge.variant-${table.variant}`, {}, t(`variant.${table.variant}`)),
        table.rated ? h("span.chip", {}, t("community.rated")) : null,
        ours ? h("span.chip.friend-chip", {}, t("community.friends_table")) : null,
        h("strong.watch-score", { "aria-label": t("community.score", { us: totals[0], them: totals[1] }) },
          `${totals[0]} – ${totals[1]}`)),
      h("ol.watch-seats", {}, table.seats.map((held, seat) => h(`li.team-${seat % 2}`, {},
        held.kind === "bot" ? t(`level.${held.level}`) : profileLink(held.player, held.name || "—"),
        ratingMark(held.rating)))),
      h("a.btn.small", { href: `#/t/${table.id}`, "data-testid": "watch-table" }, t("community.watch")));
  };
  return [
    h("h1", {}, t("community.watch_title")),
    h("p.muted", {}, t("community.watch_hint")),
    found.tables.length ? h("ul.watch-list", {}, found.tables.map(row))
      : h("p.history-empty", {}, t("community.no_live")),
  ];
}
