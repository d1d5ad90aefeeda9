// #/players/<id>: a player's profile (GET /api/players/{id}): ratings per variant with
// their rank or provisional state, the rating's history as a chart, results with and
// against each bot level, the figures of the history page, and the recent matches.

import { h, fill } from "./dom.js";
import { ratingChart } from "./chart.js";
import { matchRow, statsCards } from "./history.js";
import { protocol } from "./protocol.js";
import { ratingMark } from "./rating.js";
import { playerMenu, reputationMark } from "./community.js";
import { dateText, errorBox } from "./replay.js";

export function renderProfile(root, ctx, rawId) {
  const { t } = ctx;
  const id = decodeURIComponent(rawId);
  const page = h("section#profile.history-page", {}, h("p.history-loading", { "aria-busy": "true" }, t("history.loading")));
  fill(root, page);
  let gone = false;
  ctx.api("GET", `/api/players/${encodeURIComponent(id)}`).then(
    (player) => { if (!gone) fill(page, profilePage(ctx, player)); },
    (error) => { if (!gone) fill(page, errorBox(t, error)); });
  return () => { gone = true; };
}

function profilePage(ctx, player) {
  const { t } = ctx;
  const me = ctx.guest();
  const variants = protocol.variants.values;
  return [
    h("div.profile-head", {},
      h("h1", { "data-testid": "profile-name" }, player.name),
      h("p.match-meta", {}, t(player.account ? "profile.account" : "profile.guest"), " · ",
        t("profile.since", { date: dateText(player.since * 1000) })),
      h("div.profile-tools", {}, reputationMark(player.reputation),
        playerMenu({ id: player.id, name: player.name }))),
    h("div.rating-cards", {}, variants.map((variant) => ratingCard(t, variant, player))),
    variants.filter((variant) => player.history[variant].length).map((variant) => h("section.chart-box", {},
      h("h2", {}, t("profile.history_title", { variant: t(`variant.${variant}`) })),
      historyChart(t, variant, player.history[variant]))),
    h("section.bots-box", {}, h("h2", {}, t("profile.bots_title")), botsTable(t, variants, player.bots)),
    h("h2", {}, t("history.stats")),
    h("section.history-stats", { "aria-label": t("history.stats") }, statsCards(t, player.stats)),
    h("h2", {}, t("profile.matches")),
    player.matches.length
      ? h("ol.match-list", {}, player.matches.map((match) => matchRow(ctx, match, { id: player.id })))
      : h("p.history-empty", {}, t("history.no_matches")),
    me && me.id === player.id ? null : h("p.muted.small", {}, t("profile.private_note")),
  ];
}

/** A variant's rating: its value, rank or provisional state, uncertainty and matches. */
function ratingCard(t, variant, player) {
  const rating = player.ratings[variant];
  const rank = player.rank[variant];
  return h("article.stats-card.rating-card", { "data-variant": variant, "data-testid": "rating-card" },
    h("h3", {}, h(`span.variant-badge.variant-${variant}`, {}, t(`variant.${variant}`))),
    rating ? [
      h("p.rating-big", {}, ratingMark(rating)),
      h("p.muted", {}, rating.provisional ? t("profile.provisional", { matches: rating.matches })
        : rank ? t("profile.rank", { rank }) : t("profile.unranked")),
      h("p.muted.small", {}, t("profile.sigma", { sigma: rating.sigma.toFixed(1), matches: rating.matches })),
    ] : h("p.muted", {}, t("profile.no_rating")));
}

function historyChart(t, variant, points) {
  const values = points.map((point) => point.estimate);
  const small = window.matchMedia("(max-width: 640px)").matches;
  return ratingChart({
    values, id: `rating-chart-${variant}`, ...(small ? { width: 340, height: 220 } : {}),
    pointLabel: (i) => `${dateText(points[i].at * 1000)}: ${values[i]}`,
    labels: {
      title: t("profile.history_title", { variant: t(`variant.${variant}`) }),
      desc: t("profile.history_desc", { count: values.length, first: values[0], last: values[values.length - 1] }),
      x: t("profile.chart_x"), y: t("profile.chart_y"),
    },
  });
}

/** Won / played with a bot partner and against bots, per variant and level. */
function botsTable(t, variants, bots) {
  const cell = ({ played, won } = { played: 0, won: 0 }) => h("td.num", {}, played
    ? t("profile.won_of", { won, played, rate: Math.round((100 * won) / played) }) : "—");
  const levels = protocol.levels.values;
  return h("div.table-scroll", {}, h("table.bots-table", { "data-testid": "bots-table" },
    h("thead", {}, h("tr", {}, h("th", { scope: "col" }, t("profile.bot")),
      h("th.num", { scope: "col" }, t("profile.with_bot")), h("th.num", { scope: "col" }, t("profile.against_bot")))),
    variants.map((variant) => h("tbody", {},
      h("tr.group", {}, h("th", { colspan: 3, scope: "rowgroup" }, t(`variant.${variant}`))),
      levels.map((level) => h("tr", { "data-level": level },
        h("th", { scope: "row" }, t(`level.${level}`)),
        cell(bots[variant]?.[level]?.with), cell(bots[variant]?.[level]?.against)))))));
}
