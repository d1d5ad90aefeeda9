// The score sheet with the deal summary, the last trick, and the end of the match.

import { h } from "./dom.js";
import { t } from "./i18n.js";
import { cardSvg } from "./cards.js";
import { keepHistoryOffer } from "./account.js";
import { profileLink, ratingChange, ratingMark } from "./rating.js";
import { houseRulesScale } from "./house-rules.js";
import { SCALE_FLAGS } from "./coinche-labels.js";
import {
  contractLabel, declarationLabel, multiplierLabel, myTeam, seatName, seatPositions, teamLabels,
  teamName, watching,
} from "./labels.js";

function outcomeText(result, frame) {
  if (result.outcome === "redeal") return t("outcome.redeal");
  if (watching(frame)) return t(`outcome.${result.outcome}.team`, { team: teamName(frame.table, result.bidder % 2) });
  return t(`outcome.${result.outcome}.${outcomeSide(result, frame)}`);
}

/** Whose contract it was, for its colour: "us", "them" (the opponents' colour), or
 *  "team" for a spectator. */
function outcomeSide(result, frame) {
  if (watching(frame) || result.bidder === null) return "team";
  return result.bidder % 2 === myTeam(frame) ? "us" : "them";
}

/** The outcome in words, coloured by side, with a hint for the words a newcomer may not
 *  know (a failed contract, points held over). */
function outcomeMark(result, frame, tag) {
  const hint = ["failed", "hanging"].includes(result.outcome) ? t(`outcome.${result.outcome}_hint`) : null;
  return h(`${tag}.${result.outcome}.side-${outcomeSide(result, frame)}`, { title: hint },
    outcomeText(result, frame));
}

function contractCell(result, frame) {
  if (!result.contract) return t("outcome.all_passed");
  const mult = multiplierLabel(result.multiplier, result.contract);
  return [contractLabel(result.contract), mult ? h("span.mult", {}, ` ${mult}`) : null,
    h("div.muted.small", {}, seatName(frame.table, result.bidder))];
}

/** Every deal of the match: contract, who bid, multiplier, points, hanging. */
function sheet(frame) {
  const view = frame.view;
  const results = view ? view.results : [];
  const us = myTeam(frame);
  const [mine, theirs] = teamLabels(frame);
  return h("div.sheet-wrap", {}, h("table.sheet", {},
    h("thead", {}, h("tr", {},
      h("th", {}, "#"), h("th", {}, t("sheet.contract")), h("th", {}, t("sheet.outcome")),
      h("th.num", {}, mine), h("th.num", {}, theirs),
      h("th.num", { title: t("sheet.hanging_hint") }, t("sheet.hanging")))),
    h("tbody", {}, results.map((r, index) => h(`tr.${r.outcome}`, { "data-deal": index },
      h("td", {}, index + 1), h("td", {}, contractCell(r, frame)), outcomeMark(r, frame, "td"),
      h("td.num", {}, r.score[us]), h("td.num", {}, r.score[1 - us]),
      h("td.num", {}, r.hanging || "")))),
    h("tfoot", {}, h("tr", {}, h("td", { colspan: 3 }, t("sheet.total")),
      h("td.num", {}, view ? view.totals[us] : 0), h("td.num", {}, view ? view.totals[1 - us] : 0),
      h("td.num", {}, view && view.pool ? view.pool : "")))));
}

function breakdown(result, frame) {
  const us = myTeam(frame);
  const [mine, theirs] = teamLabels(frame);
  const row = (key, values) => h("tr", {}, h("th", {}, t(key)),
    h("td.num", {}, values[us]), h("td.num", {}, values[1 - us]));
  // The deal's match points first, then what made them: a summary's box cut short by a
  // low window, or by a language whose labels wrap, still shows the result.
  return h("table.breakdown", {},
    h("thead", {}, h("tr", {}, h("th"), h("th.num", {}, mine), h("th.num", {}, theirs))),
    h("tbody.total", {}, row("summary.score", result.score)),
    h("tbody", {}, row("summary.cards", result.card_points), row("summary.declarations", result.declarations),
      row("summary.belot", result.belot)));
}

/** What scored: the finished deal's declarations, revealed with whether each counted. */
function declarations(frame) {
  const view = frame.view;
  // After the match's last deal the view stays on that deal, its declarations revealed.
  const list = !view ? [] : view.phase === "over" ? view.announcements : view.previous_announcements;
  if (!list.length) return h("p.muted", {}, t("summary.no_declarations"));
  return h("ul.declarations", {}, list.map((a) => h(`li.${a.scored ? "scored" : "not-scored"}`, {},
    h("span.who", {}, seatName(frame.table, a.seat)),
    h("span", {}, declarationLabel(a)),
    h("span.value", {}, a.scored ? t("summary.scored", { value: a.value }) : t("summary.not_scored")),
    h("div.mini-cards", {}, (a.cards || []).map((c) => h("span.mini", {}, cardSvg(c)))))));
}

/** A valat, and the target it raised (`raisedTo`, when the deal's event raised it): no
 *  match is won on a valat (RULES.md §7.8). */
function valatLine(result, frame, raisedTo) {
  if (result.valat === null || result.valat === undefined) return null;
  const [mine, theirs] = teamLabels(frame);
  return h("p.valat", { "data-testid": "valat" }, t("summary.valat", { team: result.valat === myTeam(frame) ? mine : theirs }),
    raisedTo ? ` ${t("summary.valat_target", { target: raisedTo })}` : "");
}

/** The summary of the deal that just ended (`results` from the event that ended it);
 *  `raisedTo`: the match's new target when that deal raised it. */
export function dealSummary(frame, results, tag = "div#deal-summary", raisedTo = null) {
  const result = results[results.length - 1];
  return h(tag, {},
    h("h3", {}, t("summary.title", { n: frame.view ? frame.view.results.length : 1 })),
    h("p.summary-line", {}, result.contract
      ? t("summary.contract_by", { contract: contractLabel(result.contract), name: seatName(frame.table, result.bidder) })
      : t("outcome.all_passed"),
      result.multiplier > 1 ? h("span.mult", {}, ` ${multiplierLabel(result.multiplier, result.contract)}`) : null),
    outcomeMark(result, frame, "p.outcome"),
    result.hanging ? h("p.summary-line", {}, t("summary.hanging", { points: result.hanging })) : null,
    result.outcome === "redeal" ? null : breakdown(result, frame),
    result.outcome === "redeal" ? null : valatLine(result, frame, raisedTo),
    result.outcome === "redeal" ? null : h("h4", {}, t("summary.what_scored")),
    result.outcome === "redeal" ? null : declarations(frame));
}

/** The score sheet, after a deal's summary when one is open (`raisedTo`: see dealSummary);
 *  its title once, and words instead of an empty table before the first deal ends. */
export function scoreSheetContent(frame, summary, onClose, raisedTo = null) {
  const played = frame.view && frame.view.results.length;
  return [
    h("div.dialog-head", {}, h("h2", {}, summary ? t("summary.heading") : t("sheet.title")),
      h("button.btn.ghost.close", { type: "button", "data-testid": "close", onclick: onClose,
                                    "aria-label": t("common.close") }, "✕")),
    summary ? dealSummary(frame, summary, "div#deal-summary", raisedTo) : null,
    summary ? h("h3", {}, t("sheet.title")) : null,
    played ? sheet(frame) : h("p.muted.sheet-empty", { "data-testid": "sheet-empty" }, t("sheet.empty")),
    houseRulesScale(frame.table.variant, frame.table.options, SCALE_FLAGS),
    h("div.dialog-foot", {}, h("button.btn.primary", { type: "button", onclick: onClose },
      summary ? t("summary.continue") : t("common.close"))),
  ];
}

/** The last trick that fell, with who took it: this deal's, else (before the first trick
 *  of a deal) the previous deal's last, which the view keeps as `previous_trick`. */
export function lastTrick(view) {
  if (!view) return null;
  if (!view.tricks.length) return view.previous_trick;
  return { ...view.tricks[view.tricks.length - 1], winner: view.trick.leader };
}

export function lastTrickContent(frame, onClose, settings) {
  const last = lastTrick(frame.view);
  const positions = seatPositions(frame.seat, frame.table.options.table_direction);
  return [
    h("div.dialog-head", {}, h("h2", {}, t("table.last_trick")),
      h("button.btn.ghost.close", { type: "button", "data-testid": "close", onclick: onClose,
                                    "aria-label": t("common.close") }, "✕")),
    h("div.last-trick-cards", {}, last.cards.map((card, i) => {
      const seat = (last.leader + i) % 4;
      return h(`div.trick-card.at-${positions[seat]}${last.winner === seat ? ".winning" : ""}`,
        { "data-card": card, "data-seat": seat }, cardSvg(card, settings),
        h("span.card-owner", {}, seatName(frame.table, seat)));
    })),
    h("p.muted.center", {}, t("table.trick_won_by", { name: seatName(frame.table, last.winner) })),
  ];
}

/** Each rated player's change: name, new rating, "+12". */
function ratingsList(frame, changes) {
  return h("ul.rating-changes", { "data-testid": "rating-changes", "aria-label": t("rating.changes") },
    changes.map((change) => h("li", { "data-seat": change.seat },
      profileLink(change.player, seatName(frame.table, change.seat)),
      ratingMark(change.after), ratingChange(change.before, change.after))));
}

/** The end of the match: the winner, the final score, the ratings' changes (which the
 *  table carries once a rated match is rated: `rating_changes`, as the `ratings` event
 *  says them), a rematch. */
export function matchOver(frame, { busy, onRematch, onScores, summary }) {
  const table = frame.table;
  const winner = table.winner;
  const us = myTeam(frame);
  const [mine, theirs] = teamLabels(frame);
  const seated = !watching(frame);
  const totals = frame.view ? frame.view.totals : table.totals || [0, 0];
  const title = !seated ? t("over.team_wins", { names: teamName(table, winner) })
    : winner === us ? t("over.you_win") : t("over.you_lose");
  return h(`div#match-over.${seated && winner === us ? "won" : "lost"}`, {},
    h("div.trophy", { "aria-hidden": "true" }, "♠ ♥ ♣ ♦"),
    h("h2", {}, title),
    h("p.final", {}, h("span", {}, `${mine} ${totals[us]}`), " — ",
      h("span", {}, `${theirs} ${totals[1 - us]}`)),
    table.forfeit ? h("p.muted", {}, t("over.forfeit", { name: seatName(table, table.forfeit.seat) })) : null,
    table.rating_changes ? ratingsList(frame, table.rating_changes) : null,
    seated ? keepHistoryOffer(table.id) : null,
    h("div.row.center", {},
      seated ? h("button.btn.primary.big", { type: "button", "data-testid": "rematch", disabled: busy, onclick: onRematch },
        table.rematch ? t("over.join_rematch") : t("over.rematch")) : null,
      h("button.btn", { type: "button", onclick: onScores }, t("table.scores")),
      h("a.btn", { href: "#/" }, t("nav.lobby"))),
    // The last deal's summary comes after the buttons, folded: they stay above the fold.
    summary ? h("details.last-deal", {}, h("summary", {}, t("over.last_deal")),
      dealSummary(frame, summary, "div.deal-summary")) : null);
}
