// Ratings as the server sends them (a "RatingView": value, mu, sigma, provisional,
// matches, bot?), shown the same way on plates, lobby rows, the leaderboard and profiles;
// and the link to a player's profile.

import { h } from "./dom.js";
import { t } from "./i18n.js";

/** The rating's words for a tooltip: the rating (the skill estimate) and its margin, how
 *  many rated matches it rests on, whether it is still provisional, and the value the
 *  leaderboard ranks by (the estimate less its margin: docs/ratings.md). */
export function ratingTitle(rating) {
  const params = { value: rating.estimate, margin: rating.margin, ranked: rating.value, matches: rating.matches ?? 0 };
  if (rating.bot) return t("rating.title_bot", params);
  return t(rating.provisional ? "rating.title_provisional" : "rating.title", params);
}

/** A rating as a small mark, as lichess shows one: "1487", "1487?" while provisional;
 *  nothing for a seat without one (a guest, an empty seat). */
export function ratingMark(rating, tag = "span.rating") {
  if (!rating) return null;
  return h(`${tag}${rating.provisional ? ".provisional" : ""}`,
    { title: ratingTitle(rating), "data-rating": rating.estimate },
    String(rating.estimate),
    rating.provisional ? h("span.provisional-mark", { "aria-hidden": "true" }, "?") : null);
}

/** A rating's change at a match's end: "+12", "−8", "±0", coloured by its sign. */
export function ratingChange(before, after) {
  const delta = after.estimate - before.estimate;
  const text = delta > 0 ? `+${delta}` : delta < 0 ? `−${-delta}` : "±0";
  return h(`span.rating-change.${delta > 0 ? "up" : delta < 0 ? "down" : "same"}`,
    { "data-delta": delta, title: t("rating.change_title", { before: before.estimate, after: after.estimate }) }, text);
}

/** A player's name linking to their profile (`#/players/<id>`); plain text without an id
 *  (a bot, an empty seat). */
export function profileLink(id, name, attrs = {}) {
  if (!id) return h("span", {}, name);
  return h("a.profile-link", { href: `#/players/${encodeURIComponent(id)}`, ...attrs }, name);
}
