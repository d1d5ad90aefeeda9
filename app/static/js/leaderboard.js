// #/leaderboard/<variant>: the ranked accounts of a variant (GET /api/leaderboard), a page
// at a time ("More"), each name linking to the player's profile.

import { h, fill } from "./dom.js";
import { protocol } from "./protocol.js";
import { profileLink, ratingTitle } from "./rating.js";
import { pagedList } from "./replay.js";

const PAGE_SIZE = 50;

export function renderLeaderboard(root, ctx, rawVariant) {
  const { t } = ctx;
  const { values, default: preset } = protocol.variants;
  const variant = values.includes(rawVariant) ? rawVariant : preset;
  const me = ctx.guest();
  const body = h("tbody");
  const more = h("button.btn.history-more", { type: "button", "data-testid": "leaderboard-more", hidden: true },
    t("history.more"));
  const empty = h("p.history-empty", { "data-testid": "leaderboard-empty", hidden: true }, t("leaderboard.empty"));
  const head = h("tr", {}, [["#", "num"], [t("leaderboard.player"), ""], [t("leaderboard.rating"), "num"],
    [t("leaderboard.uncertainty"), "num.wide"], [t("leaderboard.matches"), "num"], [t("leaderboard.wins"), "num.wide"]]
    .map(([label, cls]) => h(`th${cls ? `.${cls}` : ""}`, { scope: "col" }, label)));
  fill(root, h("section#leaderboard.history-page", {},
    h("h1", {}, t("leaderboard.title")),
    h("nav.tabs", { "aria-label": t("leaderboard.variants") }, values.map((name) => h(`a.tab${name === variant ? ".active" : ""}`, {
      href: `#/leaderboard/${name}`, "aria-current": name === variant ? "page" : null, "data-testid": `board-${name}`,
    }, t(`variant.${name}`)))),
    h("p.muted", {}, t("leaderboard.explain")),
    h("div.table-scroll", {}, h("table.leaderboard-table", { "data-testid": "leaderboard" }, h("thead", {}, head), body)),
    empty, more));
  let gone = false;
  pagedList(t, more, () => gone, async (cursor) => {
    const query = new URLSearchParams({ variant, limit: String(PAGE_SIZE) });
    if (cursor) query.set("cursor", cursor);
    const page = await ctx.api("GET", `/api/leaderboard?${query}`);
    if (gone) return null;
    for (const player of page.players) body.append(row(t, player, me));
    empty.hidden = body.children.length > 0;
    return page.next;
  });
  return () => { gone = true; };
}

function row(t, player, me) {
  const { rating } = player;
  const rate = rating.matches ? Math.round((100 * player.wins) / rating.matches) : 0;
  return h(`tr${me && me.id === player.id ? ".me" : ""}`, { "data-player": player.id },
    h("td.num.rank", {}, player.rank),
    h("td", {}, profileLink(player.id, player.name)),
    h("td.num", {}, h("strong", { title: ratingTitle(rating) }, rating.estimate)),
    h("td.num.wide", {}, `± ${rating.margin}`),
    h("td.num", {}, rating.matches),
    h("td.num.wide", {}, t("leaderboard.wins_rate", { wins: player.wins, rate })));
}
