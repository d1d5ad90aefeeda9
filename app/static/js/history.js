// History pages: the player's matches and stats (#/history), one match's deals with the
// score chart (#/match/<id>); the replay viewer (#/replay/<id>) lives in replay.js.

import { analysisPanel } from "./analysis.js";
import { h, fill } from "./dom.js";
import { scoreChart } from "./chart.js";
import { houseRulesLine } from "./house-rules.js";
import {
  contractMark, outcomeMark, pastPlayerName, pastSeat, playerName, seatedTeam, teamLabeller,
} from "./labels.js";
import { profileLink } from "./rating.js";
import { sheetRow } from "./scoresheet.js";
import {
  currentGuest, dateText, decisionRoute, errorBox, pagedList, splitRouteId,
} from "./replay.js";

export { renderReplay } from "./replay.js";

const PAGE_SIZE = 20;

/** Whether the match is on, abandoned, won or lost, seen from `team` (null: team 0's). */
function standing(match, team) {
  if (!match.finished_at) return "on";
  if (match.winner === null || match.winner === undefined) return "abandoned";
  return match.winner === (team ?? 0) ? "won" : "lost";
}

function variantBadge(t, variant) {
  return h(`span.variant-badge.variant-${variant}`, {}, t(`variant.${variant}`));
}

function loading(t) {
  return h("p.history-loading", { "aria-busy": "true" }, t("history.loading"));
}

// ---------------------------------------------------------------- #/history

export function renderHistory(root, ctx) {
  const { t } = ctx;
  const me = currentGuest(ctx);
  const list = h("ol.match-list", { "aria-label": t("history.matches") });
  const more = h("button.history-more", { type: "button", "data-testid": "history-more", hidden: true },
                 t("history.more"));
  const stats = h("section.history-stats", { "aria-label": t("history.stats") }, loading(t));
  const page = h("section#history.history-page", {},
    h("h1", {}, t("history.title")),
    me ? h("p.history-who", {}, t("history.played_as", { name: me.name })) : null);
  fill(root, page);
  if (!me) {
    page.append(h("p.history-empty", {}, t("history.no_guest")),
                h("a.history-button", { href: "#/" }, t("history.to_lobby")));
    return undefined;
  }
  const sheets = h("ul.sheet-list", { "data-testid": "history-sheets" });
  page.append(stats, h("h2", {}, t("history.matches")), list, more,
    h("h2", {}, t("sheets.title")), sheets, h("a.history-button", { href: "#/scores" }, t("sheets.open")));
  let gone = false;
  ctx.api("GET", "/api/scoresheets?limit=5").then(
    (result) => { if (!gone) fill(sheets, result.sheets.length ? result.sheets.map(sheetRow) : h("li.empty", {}, t("sheets.none"))); },
    () => { if (!gone) sheets.remove(); });
  const statsShown = Promise.resolve(ctx.api("GET", `/api/players/${encodeURIComponent(me.id)}/stats`)).then(
    (result) => { if (!gone) fill(stats, statsCards(t, result)); },
    (error) => {
      if (gone) return;
      fill(stats, error && error.status === 404
        ? h("p.history-empty", {}, t("history.no_stats")) : errorBox(t, error));
    });
  pagedList(t, more, () => gone, async (cursor) => {
    const query = new URLSearchParams({ player: me.id, limit: String(PAGE_SIZE) });
    if (cursor) query.set("cursor", cursor);
    const result = await ctx.api("GET", `/api/matches?${query}`);
    // The first rows wait for the figures above them: drawn later, those pushed the rows
    // down under a tap (a test's click on a row once landed beside it).
    if (!cursor) await statsShown;
    if (gone) return null;
    for (const match of result.items) list.append(matchRow(ctx, match, me));
    if (!list.children.length) list.replaceWith(h("p.history-empty", {}, t("history.no_matches")));
    return result.next_cursor;
  });
  return () => { gone = true; };
}

/** A player's figures per variant (`GET /api/players/{id}/stats`), as cards. */
export function statsCards(t, stats) {
  if (!stats.by_variant.length) return h("p.history-empty", {}, t("history.no_stats"));
  return stats.by_variant.map((v) => {
    const rate = v.matches ? Math.round((100 * v.wins) / v.matches) : 0;
    const figure = (value, label) => h("div.stat", {}, h("span.stat-value", {}, value),
                                       h("span.stat-label", {}, label));
    return h("article.stats-card", { "data-variant": v.variant },
      h("h3", {}, variantBadge(t, v.variant)),
      h("div.stat-grid", {},
        figure(v.matches, t("history.stat.matches")),
        figure(`${v.wins} (${rate}%)`, t("history.stat.wins")),
        figure(`${v.points_for} : ${v.points_against}`, t("history.stat.points")),
        figure(`${v.contracts_made} / ${v.contracts_failed} / ${v.contracts_hanging}`,
               t("history.stat.contracts"))));
  });
}

/** A match of a list, as the player `me` ({id}) played it: seats, score, standing. */
export function matchRow(ctx, match, me) {
  const { t } = ctx;
  const team = seatedTeam(match.seats, me);
  const status = standing(match, team);
  const us = team ?? 0;
  return h("li", {},
    h("a.match-row", {
      href: `#/match/${encodeURIComponent(match.id)}`, "data-testid": "match-row",
      "data-match-id": match.id, "data-status": status,
    },
    h("span.row-head", {}, variantBadge(t, match.variant),
      h("time", { datetime: match.started_at }, dateText(match.started_at))),
    rowSeats(t, match.seats, me),
    h("span.row-score", {},
      match.finished_at
        ? h("span.score", { "aria-label": t("history.score_aria", { us: match.totals[us], them: match.totals[1 - us] }) },
            `${match.totals[us]} : ${match.totals[1 - us]}`)
        : null,
      h(`span.standing.standing-${status}`, {}, t(`history.standing.${status}`),
        match.end_reason === "forfeit" ? ` · ${t("history.forfeit")}` : ""))));
}

/** Who played with and against the guest: "with Ivo · vs 2 bots (hard, easy)", the bots
 *  told apart by side and level; the four names when the guest did not play. */
function rowSeats(t, seats, me) {
  const mine = pastSeat(seats, me);
  if (mine === null) {
    return h("ul.row-seats", {}, seats.map((seat) => h(`li.team-${seat.seat % 2}`, {}, playerName(seat))));
  }
  const level = (seat) => t(`level.${seat.level}`);
  const partner = seats[(mine + 2) % 4];
  const opponents = [seats[(mine + 1) % 4], seats[(mine + 3) % 4]];
  const partnerText = partner.kind === "bot" ? t("history.row.bot_partner", { level: level(partner) })
    : partner.name;
  const against = opponents.every((seat) => seat.kind === "bot")
    ? t("history.row.two_bots", { levels: opponents.map(level).join(", ") })
    : opponents.map(playerName).join(" & ");
  return h("ul.row-seats.sides", {},
    h(`li.team-${mine % 2}.me`, {}, t("history.row.with", { partner: partnerText })),
    h(`li.team-${1 - (mine % 2)}`, {}, t("history.row.against", { opponents: against })));
}

// ---------------------------------------------------------------- #/match/<id>

export function renderMatch(root, ctx, rawId) {
  const { t } = ctx;
  const { id } = splitRouteId(rawId);
  const page = h("section#match.history-page", {}, loading(t));
  fill(root, page);
  let gone = false;
  let analysis = null;
  const path = `/api/matches/${encodeURIComponent(id)}`;
  Promise.all([ctx.api("GET", path), ctx.api("GET", `${path}/replay`)]).then(
    ([match, replay]) => {
      if (gone) return;
      fill(page, matchPage(ctx, match, replay));
      if (match.finished_at && replay.deals.length) {
        const me = currentGuest(ctx);
        analysis = analysisPanel(ctx, match.id, {
          nameOf: (seat) => pastPlayerName(match.seats, seat, me, replay.table_direction),
          jumpTo: (decision) => decisionRoute(match.id, replay.deals, decision),
        });
        page.querySelector(".match-teams").after(analysis.element);
      }
    },
    (error) => {
      if (!gone) fill(page, h("a.history-back", { href: "#/history" }, t("history.back")), errorBox(t, error));
    });
  return () => {
    gone = true;
    if (analysis) analysis.close();
  };
}

function matchPage(ctx, match, replay) {
  const { t } = ctx;
  const me = currentGuest(ctx);
  const team = seatedTeam(match.seats, me);
  const status = standing(match, team);
  const teamLabel = teamLabeller(match.seats, me);
  const played = replay.deals.length;
  const totals = replay.totals;
  const name = (seat) => pastPlayerName(match.seats, seat, me, replay.table_direction);
  const targets = [replay.target_score, ...replay.deals.map((d) => d.target)];
  const target = targets[targets.length - 1];
  const targetText = target === replay.target_score ? t("history.target", { target })
    : t("history.target_raised", { from: replay.target_score, target });
  return [
    h("a.history-back", { href: "#/history" }, t("history.back")),
    h("div.match-head", {},
      h("h1", {}, t("history.match_title", { variant: t(`variant.${match.variant}`) })),
      h("p.match-meta", {},
        h("time", { datetime: match.started_at }, dateText(match.started_at)), " · ",
        h(`span.standing.standing-${status}`, {}, t(`history.standing.${status}`)),
        match.end_reason === "forfeit" ? ` · ${t("history.forfeit")}` : ""),
      houseRulesLine(match.variant, match.options),
      played
        ? h("a.history-button.replay-link", {
          href: `#/replay/${encodeURIComponent(match.id)}`, "data-testid": "open-replay",
        }, "▶ ", t("history.open_replay"))
        : null),
    h("div.match-teams", {},
      [0, 1].map((k) => h(`div.match-team.team-${k}`, {},
        h("span.team-label", {}, teamLabel(k)),
        h("ul", {}, [k, k + 2].map((seat) => h("li", {}, profileLink(match.seats[seat].player_id, name(seat))))),
        h("span.team-total", {}, totals[k])))),
    h("section.chart-box", {},
      h("h2", {}, t("history.chart_title")),
      played ? scoreChart({
        totals: replay.deals.map((d) => d.totals),
        targets,
        ...(window.matchMedia("(max-width: 640px)").matches ? { width: 340, height: 240 } : {}),
        labels: {
          title: t("history.chart_title"),
          desc: t("history.chart_desc", { deals: played, team0: teamLabel(0), team1: teamLabel(1),
                                          total0: totals[0], total1: totals[1] }),
          x: t("history.chart_x"), y: t("history.chart_y"),
          teams: [teamLabel(0), teamLabel(1)], target: t("history.target", { target }),
        },
      }) : h("p.history-empty", {}, t("history.no_deals")),
      h("ul.chart-legend", {}, [0, 1].map((k) => h(`li.team-${k}`, {}, teamLabel(k))),
        h("li.legend-target", {}, targetText)),
      valatNotes(t, replay, targets, teamLabel)),
    h("section.deals-box", {},
      h("h2", {}, t("history.deals")),
      dealsTable(ctx, match, replay, { teamLabel, name, targets })),
  ];
}

/** Each valat of the match in words, and what it did to the target (RULES.md §7.8):
 *  the chart's step and the deals table's mark explained. */
function valatNotes(t, replay, targets, teamLabel) {
  const notes = replay.deals.filter((d) => d.result.valat !== null).map((d) => {
    const [before, after] = [targets[d.index], targets[d.index + 1]];
    const params = { deal: d.index + 1, team: teamLabel(d.result.valat), from: before, target: after };
    return h("li", { "data-valat-deal": d.index },
      t(after > before ? "history.valat_raised" : "history.valat_note", params));
  });
  return notes.length ? h("ul.valat-notes", { "data-testid": "valat-notes" }, notes) : null;
}

/** The deals, each replayable; a valat marked, with the target it raised. `targets[i]` is
 *  the target before deal i. */
function dealsTable(ctx, match, replay, { teamLabel, name, targets }) {
  const { t } = ctx;
  const totalsAfter = new Map(replay.deals.map((d) => [d.index, d.totals]));
  const head = h("tr", {},
    [t("history.col.deal"), t("history.col.contract"), t("history.col.bidder"),
     t("history.col.outcome"), teamLabel(0), teamLabel(1), t("history.col.hanging"),
     t("history.col.total")].map((label, i) => h(`th.col-${i}`, { scope: "col" }, label)));
  const rows = match.deals.map((deal) => {
    const after = totalsAfter.get(deal.index);
    const bidder = deal.bidder === null ? null : name(deal.bidder);
    const valat = deal.valat === null || deal.valat === undefined ? null
      : h("span.valat-mark", { title: t("history.valat_title", { team: teamLabel(deal.valat) }) },
        t("history.valat"));
    const open = () => ctx.navigate(`#/replay/${encodeURIComponent(match.id)}?deal=${deal.index + 1}`);
    return h("tr", {
      "data-deal": deal.index, class: `${after ? "replayable" : "unfinished"}${valat ? " valat-deal" : ""}`,
      tabindex: after ? 0 : null, title: after ? t("history.replay_deal") : null,
      onclick: after ? open : null,
      onkeydown: after ? (e) => { if (e.key === "Enter") open(); } : null,
    },
    h("td.col-0", {}, deal.index + 1),
    h("td.col-1", {}, contractMark(deal.contract, deal.multiplier || 1),
      bidder ? h("span.bidder-inline", {}, bidder) : null),
    h("td.col-2", {}, bidder || "—"),
    h("td.col-3", {}, outcomeMark(deal.outcome), valat),
    h("td.col-4.num", {}, deal.score ? deal.score[0] : "—"),
    h("td.col-5.num", {}, deal.score ? deal.score[1] : "—"),
    h("td.col-6.num", {}, deal.hanging || "—"),
    h("td.col-7.num", {}, after
      ? [h("span.total-0", {}, after[0]), h("span.total-sep", {}, " : "), h("span.total-1", {}, after[1])]
      : "—",
    valat && after && targets[deal.index + 1] > targets[deal.index]
      ? h("span.target-after", {}, t("history.target", { target: targets[deal.index + 1] })) : null));
  });
  return h("div.table-scroll", {},
    h("table.deals-table", { class: match.deals.some((d) => d.hanging) ? "deals-table" : "deals-table no-hanging" },
      h("thead", {}, head),
      h("tbody", {}, rows.length ? rows : h("tr", {}, h("td", { colspan: 8 }, t("history.no_deals"))))));
}
