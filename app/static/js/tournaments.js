// #/tournaments: the list (upcoming, running, finished) and a new tournament's form with a
// preview of its schedule; #/tournaments/<id>: entries, joining (alone or as a pair), the
// director's bots and start, "your table", every round's tables and the standings, read
// again on each of its notices on the personal channel (and when the channel opens again
// after a cut; slowly besides, for a viewer nobody tells); #/league/<variant>: the
// caller's league group, its zones and the season's countdown (docs/tournaments.md).

import { isAccount } from "./api.js";
import { CHANNEL_OPEN, COMMUNITY_CHANGED } from "./community.js";
import { h, fill } from "./dom.js";
import { protocol } from "./protocol.js";
import { profileLink } from "./rating.js";
import { dateText, errorBox } from "./replay.js";

const FALLBACK_MS = 30000; // read again this often besides, while it is on: nobody tells a mere viewer
const STATUSES = ["upcoming", "running", "finished"];
const COUNTDOWN_MS = 30000; // the season's countdown is told again this often

export function renderTournaments(root, ctx, rawStatus) {
  const { t } = ctx;
  const status = STATUSES.includes(rawStatus) ? rawStatus : "upcoming";
  const list = h("div.tournament-list", { "data-testid": "tournament-list" });
  fill(root, h("section#tournaments.history-page", {},
    h("h1", {}, t("tournament.title")),
    h("nav.tabs", { "aria-label": t("tournament.title") }, STATUSES.map((name) => h(`a.tab${name === status ? ".active" : ""}`, {
      href: `#/tournaments/${name}`, "aria-current": name === status ? "page" : null, "data-testid": `tournaments-${name}`,
    }, t(`tournament.status.${name}`)))),
    list,
    h("p", {}, h("a", { href: "#/league", "data-testid": "to-league" }, t("league.title"))),
    isAccount() ? createForm(ctx) : h("p.muted", { "data-testid": "tournament-account-hint" }, t("tournament.account_needed"))));
  let gone = false;
  ctx.api("GET", `/api/tournaments?status=${status}&limit=50`).then((page) => {
    if (gone) return;
    fill(list, page.tournaments.length ? page.tournaments.map((one) => summary(t, one))
      : h("p.history-empty", {}, t("tournament.none")));
  }, (error) => { if (!gone) fill(list, errorBox(t, error)); });
  return () => { gone = true; };
}

function summary(t, one) {
  return h("a.match-row.tournament-row", { href: `#/tournaments/${one.id}`, "data-testid": "tournament-row" },
    h("strong", {}, one.name),
    h("span", {}, `${t(`variant.${one.variant}`)} · ${t(`tournament.format.${one.format}`)} · ${t(`tournament.teams.${one.teams}`)}`),
    h("span.muted", {}, t("tournament.entries_count", { entries: one.entries, max: one.max_entries })),
    h("span.muted", {}, one.status === "upcoming"
      ? (one.starts_at ? dateText(one.starts_at) : t("tournament.when_director"))
      : t("tournament.round_of", { round: one.round, rounds: one.rounds })));
}

function field(label, input) {
  return h("label.tournament-field", {}, h("span", {}, label), input);
}

/** The form of a new tournament, with a preview of its schedule as the values change. */
function createForm(ctx) {
  const { t } = ctx;
  const select = (name, values, label) => h("select", { name, "data-testid": `new-${name}` },
    values.map((value) => h("option", { value }, label(value))));
  const form = h("form.card.tournament-form", { "data-testid": "tournament-form" },
    h("h2", {}, t("tournament.create")),
    field(t("tournament.name"), h("input", { name: "name", required: true, maxlength: 32, "data-testid": "new-name" })),
    field(t("tournament.variant"), select("variant", protocol.variants.values, (v) => t(`variant.${v}`))),
    field(t("tournament.format"), select("format", ["swiss", "duplicate"], (v) => t(`tournament.format.${v}`))),
    field(t("tournament.teams"), select("teams", ["fixed", "rotating"], (v) => t(`tournament.teams.${v}`))),
    field(t("tournament.rounds"), h("input", { name: "rounds", type: "number", min: 1, max: 15, value: 3 })),
    field(t("tournament.round_minutes"), h("input", { name: "round_minutes", type: "number", min: 1, max: 600, value: 60 })),
    field(t("tournament.max_entries"), h("input", { name: "max_entries", type: "number", min: 2, max: 256, value: 32 })),
    field(t("tournament.starts_at"), h("input", { name: "starts_at", type: "datetime-local" })),
    h("label.switch", {}, h("input", { type: "checkbox", name: "rated" }), h("span", {}, t("tournament.rated"))));
  const preview = h("p.muted.tournament-preview", { "data-testid": "schedule-preview" });
  const show = () => {
    const data = new FormData(form);
    const rounds = Number(data.get("rounds")) || 1;
    const minutes = Number(data.get("round_minutes")) || 60;
    const start = data.get("starts_at") ? new Date(data.get("starts_at")) : null;
    const latest = start ? dateText(new Date(start.getTime() + rounds * minutes * 60000).toISOString()) : null;
    preview.textContent = t(latest ? "tournament.preview_at" : "tournament.preview",
      { rounds, minutes, hours: Math.ceil((rounds * minutes) / 60), end: latest });
  };
  form.addEventListener("input", show);
  form.append(preview, h("button.btn", { type: "submit", "data-testid": "create-tournament" }, t("tournament.create")));
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const data = new FormData(form);
    const body = { name: data.get("name"), variant: data.get("variant"), format: data.get("format"),
      teams: data.get("teams"), rounds: Number(data.get("rounds")), round_minutes: Number(data.get("round_minutes")),
      max_entries: Number(data.get("max_entries")), rated: data.get("rated") === "on" };
    if (data.get("starts_at")) body.starts_at = new Date(data.get("starts_at")).toISOString();
    try {
      const made = await ctx.api("POST", "/api/tournaments", body);
      ctx.navigate(`#/tournaments/${made.id}`);
    } catch (error) {
      ctx.toast(error);
    }
  });
  show();
  return form;
}

export function renderTournament(root, ctx, id) {
  let gone = false;
  let timer = null;
  const load = async () => {
    try {
      const tour = await ctx.api("GET", `/api/tournaments/${encodeURIComponent(id)}`);
      if (gone) return;
      fill(root, detail(ctx, tour, load));
      clearTimeout(timer); // one fallback, whichever of two reads in flight ends last
      if (tour.status !== "finished") timer = setTimeout(load, FALLBACK_MS);
    } catch (error) {
      if (!gone) fill(root, h("section.history-page", {}, errorBox(ctx.t, error)));
    }
  };
  const told = (event) => {
    if (event.detail && event.detail.kind === "standings" && event.detail.tournament === id) load();
  };
  window.addEventListener(COMMUNITY_CHANGED, told);
  window.addEventListener(CHANNEL_OPEN, load);
  load();
  return () => {
    gone = true;
    clearTimeout(timer);
    window.removeEventListener(COMMUNITY_CHANGED, told);
    window.removeEventListener(CHANNEL_OPEN, load);
  };
}

function detail(ctx, tour, reload) {
  const { t } = ctx;
  const me = ctx.guest();
  const member = (m) => (m.player_id || !m.level ? m.name : t("history.bot", { level: t(`level.${m.level}`) }));
  const names = new Map(tour.entries.map((e) => [e.entry, e.members.map(member).join(" & ")]));
  // A table's team: its pair's entry, or (partners rotating) the two players' entries.
  const team = (seats, side) => (tour.teams === "rotating"
    ? `${entryName(tour, seats[side], names)} & ${entryName(tour, seats[side + 2], names)}`
    : entryName(tour, seats[side], names));
  const mine = me && tour.entries.find((e) => e.members.some((m) => m.player_id === me.id));
  const act = (method, path, body) => async () => {
    try {
      await ctx.api(method, `/api/tournaments/${tour.id}${path}`, body);
      reload();
    } catch (error) {
      ctx.toast(error);
    }
  };
  const next = mine && tour.tables.find((x) => x.round === tour.round && x.status === "playing" && x.seats.includes(mine.entry));
  const partner = h("input", { placeholder: t("tournament.partner_id"), "data-testid": "partner-id", maxlength: 64 });
  const actions = [];
  if (tour.status === "running" && mine && !mine.withdrawn) {
    const leave = act("DELETE", "/entries");
    actions.push(h("button.btn.ghost", { type: "button", "data-testid": "withdraw",
      onclick: () => { if (window.confirm(t("tournament.withdraw_confirm"))) leave(); } }, t("tournament.withdraw")));
  }
  if (tour.status === "upcoming" && me) {
    if (mine) actions.push(h("button.btn.ghost", { type: "button", "data-testid": "withdraw", onclick: act("DELETE", "/entries") }, t("tournament.withdraw")));
    else {
      actions.push(h("button.btn", { type: "button", "data-testid": "join", onclick: act("POST", "/entries", {}) },
        t(tour.teams === "fixed" ? "tournament.join_bot_partner" : "tournament.join")));
      if (tour.teams === "fixed") {
        actions.push(partner, h("button.btn", { type: "button", "data-testid": "join-pair",
          onclick: () => act("POST", "/entries", { partner: partner.value.trim() })() }, t("tournament.join_pair")));
      }
    }
    if (me.id === tour.director) {
      actions.push(h("button.btn.ghost", { type: "button", "data-testid": "add-bot", onclick: act("POST", "/entries", { bot: protocol.levels.default }) }, t("tournament.add_bot")),
        h("button.btn", { type: "button", "data-testid": "start-tournament", onclick: act("POST", "/start") }, t("tournament.start")));
    }
  }
  const duplicate = tour.format === "duplicate";
  const standings = h("table.leaderboard-table", { "data-testid": "standings" },
    h("thead", {}, h("tr", {}, [["#", "num"], [t("tournament.entry"), ""], [t("tournament.points"), "num"],
      [t("tournament.played"), "num.wide"], [t("tournament.diff"), "num.wide"], duplicate ? [t("tournament.field"), "num"] : null]
      .filter(Boolean).map(([label, cls]) => h(`th${cls ? `.${cls}` : ""}`, { scope: "col" }, label)))),
    h("tbody", {}, tour.standings.map((line) => h(`tr${mine && mine.entry === line.entry ? ".me" : ""}`, {},
      h("td.num.rank", {}, line.rank), h("td", {}, entryName(tour, line.entry, names)), h("td.num", {}, line.points),
      h("td.num.wide", {}, line.played), h("td.num.wide", {}, line.diff), duplicate ? h("td.num", {}, line.field) : null))));
  return h("section#tournament.history-page", { "data-testid": "tournament" },
    h("h1", {}, tour.name),
    h("p", { "data-testid": "tournament-status" }, [t(`tournament.status.${tour.status}`),
      t("tournament.round_of", { round: tour.round, rounds: tour.rounds }),
      `${t(`variant.${tour.variant}`)} · ${t(`tournament.format.${tour.format}`)} · ${t(`tournament.teams.${tour.teams}`)}`,
      tour.round_ends_at && tour.status === "running" ? t("tournament.round_ends", { at: dateText(tour.round_ends_at) }) : null,
      tour.starts_at && tour.status === "upcoming" ? t("tournament.starts", { at: dateText(tour.starts_at) }) : null]
      .filter(Boolean).join(" · ")),
    next ? h("a.btn.tournament-next", { href: `#/t/${next.id}`, "data-testid": "next-table" }, t("tournament.your_table")) : null,
    actions.length ? h("div.tournament-actions", {}, actions) : null,
    h("h2", {}, t("tournament.standings")),
    h("div.table-scroll", {}, standings),
    tour.tables.length ? h("h2", {}, t("tournament.tables")) : null,
    h("ul.tournament-tables", {}, tour.tables.map((x) => h("li", { "data-testid": "round-table" },
      `${x.round}.${x.index + 1} · `,
      team(x.seats, 0), " — ", team(x.seats, 1),
      x.status === "over" ? ` · ${x.totals[0]}:${x.totals[1]}` : ` · ${t(`tournament.table.${x.status}`)}`,
      x.id ? h("a", { href: x.status === "over" ? `#/match/${x.id}` : `#/t/${x.id}` }, t("tournament.open")) : null))),
    h("h2", {}, t("tournament.entries")),
    h("ul.tournament-entries", {}, tour.entries.map((e) => h("li", {}, `${e.entry}. `,
      e.members.map((m, i) => [i ? " & " : "", m.player_id ? profileLink(m.player_id, m.name) : member(m)]),
      e.withdrawn ? ` (${t("tournament.withdrawn")})` : ""))));
}

function entryName(tour, entry, names) {
  return tour.teams === "rotating" ? names.get(entry) || String(entry) : `${entry}. ${names.get(entry) || ""}`;
}

export function renderLeague(root, ctx, rawVariant) {
  const { t } = ctx;
  const { values, default: preset } = protocol.variants;
  const variant = values.includes(rawVariant) ? rawVariant : preset;
  const page = h("div", { "data-testid": "league" });
  fill(root, h("section#league.history-page", {},
    h("h1", {}, t("league.title")),
    h("nav.tabs", { "aria-label": t("league.title") }, values.map((name) => h(`a.tab${name === variant ? ".active" : ""}`, {
      href: `#/league/${name}`, "aria-current": name === variant ? "page" : null }, t(`variant.${name}`)))),
    page));
  let gone = false;
  let ticking = null;
  if (!isAccount()) {
    fill(page, h("p.muted", {}, t("league.account_needed")));
    return () => {};
  }
  ctx.api("GET", `/api/leagues/${variant}`).then((league) => {
    if (gone) return;
    const me = ctx.guest();
    const size = league.group.length;
    const zone = (rank) => (rank <= league.zones.promotion ? ".up" : rank > size - league.zones.demotion ? ".down" : "");
    const left = h("span", { "data-testid": "league-countdown" });
    const tick = () => { left.textContent = league.ends_at ? ` (${countdown(league.ends_at)})` : ""; };
    tick();
    ticking = setInterval(tick, COUNTDOWN_MS);
    fill(page,
      h("p", { "data-testid": "league-division" }, [
        league.division ? t("league.division", { division: league.division, divisions: league.divisions }) : null,
        league.ends_at ? t("league.ends", { at: dateText(league.ends_at) }) : null]
        .filter(Boolean).join(" · "), left),
      h("p.muted", {}, t("league.explain")),
      size ? h("div.table-scroll", {}, h("table.leaderboard-table.league-table", { "data-testid": "league-group" },
        h("thead", {}, h("tr", {}, ["#", t("leaderboard.player"), t("tournament.points"), t("leaderboard.matches")]
          .map((label) => h("th", { scope: "col" }, label)))),
        h("tbody", {}, league.group.map((line) => h(`tr${zone(line.rank)}${me && me.id === line.player ? ".me" : ""}`, {},
          h("td.num.rank", {}, line.rank), h("td", {}, profileLink(line.player, line.name || line.player)),
          h("td.num", {}, line.points), h("td.num", {}, line.matches))))))
        : h("p.history-empty", {}, t("league.no_group")),
      size ? h("p.muted", {}, t("league.zones", { up: league.zones.promotion, down: league.zones.demotion })) : null);
  }, (error) => { if (!gone) fill(page, errorBox(t, error)); });
  return () => { gone = true; clearInterval(ticking); };
}

/** The time left until `iso`, in the page's language: days, then hours, then minutes. */
function countdown(iso) {
  const left = (new Date(iso).getTime() - Date.now()) / 1000;
  const format = new Intl.RelativeTimeFormat(document.documentElement.lang || "en", { numeric: "auto" });
  if (left >= 86400) return format.format(Math.floor(left / 86400), "day");
  if (left >= 3600) return format.format(Math.floor(left / 3600), "hour");
  return format.format(Math.max(0, Math.ceil(left / 60)), "minute");
}
