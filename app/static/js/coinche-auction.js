// Coinche's auction (COINCHE.md §4) as a grid of values and strains, with pass, coinche
// and surcoinche beside it. Only the calls the server lists as legal are offered: a value
// no longer legal has no column, a strain the table does not play has no row. On a wide
// screen the values run across and the strains down; held upright, a phone turns the grid
// (coinche.css), so that up to eleven values fit either way, and with four strains or fewer
// gives each two columns (`paired`), so that the grid is half as tall.

import { h } from "./dom.js";
import { t } from "./i18n.js";
import { suitSymbol } from "./cards.js";
import {
  bidValueText, coincheCallLabel, isCoinche, isCoincheCall, pointBid, pointBidLabel,
} from "./coinche-labels.js";

const STRAINS = ["C", "D", "H", "S", "NT", "AT"];
const KINDS = ["points", "capot", "generale"];

/** Whether a seat's legal actions are Coinche's calls: the grid is shown instead of the
 *  other variants' row of buttons. */
export function isCoincheAuction(legal) {
  return legal.some((action) => action !== "pass" && isCoincheCall(action));
}

/** The order of a value in the grid: 80..160, then capot, then générale. */
function valueRank(bid) {
  return KINDS.indexOf(bid.kind) * 1000 + (bid.value || 0);
}

function strainMark(strain) {
  if (strain.length > 1) return h("span.strain-name", {}, t(`coinche.strain.${strain}`));
  return h(`span.suit.suit-${strain}`, { "aria-hidden": "true" }, suitSymbol(strain));
}

/** The legal point bids as cells of a grid: each knows its value's and strain's place. */
function cells(legal, onAction) {
  const bids = legal.map((action) => ({ action, bid: pointBid(action) })).filter((x) => x.bid);
  const values = [...new Set(bids.map((x) => bidValueText(x.bid)))];
  const byValue = new Map(bids.map((x) => [bidValueText(x.bid), valueRank(x.bid)]));
  values.sort((a, b) => byValue.get(a) - byValue.get(b));
  const strains = STRAINS.filter((s) => bids.some((x) => x.bid.strain === s));
  // Each cell says its value: only the strains need headings.
  const heads = strains.map((strain, j) => h(`span.cg-head.cg-strain.strain-${strain}`,
    { style: `--v:1;--s:${j + 1}` }, strainMark(strain)));
  const buttons = bids.map(({ action, bid }) => {
    const v = values.indexOf(bidValueText(bid)) + 2, s = strains.indexOf(bid.strain) + 1;
    const label = pointBidLabel(action);
    return h(`button.btn.cg-bid.strain-${bid.strain}.kind-${bid.kind}`, {
      type: "button", "data-action": action, "aria-label": label, title: label,
      style: `--v:${v};--s:${s}`, onclick: () => onAction(action) },
    h("span.cg-bid-value", {}, bidValueText(bid, true)), strainMark(bid.strain));
  });
  return { values, strains, heads, buttons };
}

/** The panel's calls for a Coinche seat: the grid, then pass, coinche and surcoinche. */
export function coincheAuction(view, onAction) {
  const legal = view.legal_actions;
  const grid = cells(legal, onAction);
  const others = [...legal.filter(isCoinche), ...legal.filter((call) => call === "pass")];
  return h("div.coinche-auction", { "data-testid": "coinche-auction" },
    grid.buttons.length ? h(`div.coinche-grid${grid.strains.length <= 4 ? ".paired" : ""}`, {
      role: "group", "aria-label": t("coinche.grid"),
      style: `--values:${grid.values.length};--strains:${grid.strains.length}` },
    grid.heads, grid.buttons) : null,
    h("div.coinche-calls", {}, others.map((call) => h(`button.btn.bid.bid-${call}${call === "pass" ? "" : ".primary"}`,
      { type: "button", "data-action": call, onclick: () => onAction(call) },
      coincheCallLabel(call) || t("bid.pass")))));
}
