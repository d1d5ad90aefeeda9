// Ratings as the server sends them (a "RatingView": value, mu, sigma, provisional,
// matches, bot?), shown the same way on plates, lobby rows, the leaderboard and profiles;
// and the link to a player's profile.

import { h } from "./dom.js";
import { t } from "./i18n.js";

/** The rating's words for a tooltip: its value, its uncertainty (sigma), how many rated
 *  matches it rests on, and whether it is still provisional. */
export function ratingTitle(rating) {
  const sigma = rating.sigma.toFixed(1);
  if (rating.bot) return t("rating.title_bot", { value: rating.value, sigma });
  return t(rating.provisional ? "rating.title_provisional" : "rating.title",
    { value: rating.value, sigma, matches: rating.matches ?? 0 });
}

/** A rating as a small mark: "1487", "1487?" while provisional ("?" alone before any
 *  rated match); nothing for a seat without one (a guest, an empty seat). */
export function ratingMark(rating, tag = "span.rating") {
  if (!rating) return null;
  const unrated = rating.provisional && !rating.matches;
  return h(`${tag}${rating.provisional ? ".provisional" : ""}`,
    { title: ratingTitle(rating), "data-rating": rating.value },
    unrated ? "?" : String(rating.value),
    rating.provisional && !unrated ? h("span.provisional-mark", { "aria-hidden": "true" }, "?") : null);
}

/** A rating's change at a match's end: "+12", "−8", "±0", coloured by its sign. */
export function ratingChange(before, after) {
  const delta = after.value - before.value;
  const text = delta > 0 ? `+${delta}` : delta < 0 ? `−${-delta}` : "±0";
  return h(`span.rating-change.${delta > 0 ? "up" : delta < 0 ? "down" : "same"}`,
    { "data-delta": delta, title: t("rating.change_title", { before: before.value, after: after.value }) }, text);
}

/** A player's name linking to their profile (`#/players/<id>`); plain text without an id
 *  (a bot, an empty seat). */
export function profileLink(id, name, attrs = {}) {
  if (!id) return h("span", {}, name);
  return h("a.profile-link", { href: `#/players/${encodeURIComponent(id)}`, ...attrs }, name);
}
