// Coinche's words (COINCHE.md §10): its point bids ("80H", "120SA", "capotS",
// "generaleD"), coinche and surcoinche, and its multipliers, read from the notation the
// server sends. labels.js asks here first, so every page (table, score sheet, history,
// replay) names a Coinche contract the same way. No rules: only how to show them.

import { t } from "./i18n.js";
import { suitSymbol } from "./cards.js";

const POINT_BID = /^(\d+|capot|generale)(C|D|H|S|SA|TA|NT|AT)$/;
// The record writes sans-atout and tout-atout SA and TA; the other variants' NT and AT
// name the same strains, and their words are shared.
const STRAIN = { SA: "NT", TA: "AT" };
// Coinche's double and redouble, whose names are the variant's own.
const COINCHE_CALL = /^(sur)?coinche$/;

/** "120H" -> { kind: "points", value: 120, strain: "H" }; "capotS" -> kind "capot";
 *  anything else (a suit, a card, "pass") -> null. */
export function pointBid(name) {
  const match = POINT_BID.exec(name || "");
  if (!match) return null;
  const [, head, strain] = match;
  const kind = /^\d/.test(head) ? "points" : head;
  return { kind, value: kind === "points" ? Number(head) : null, strain: STRAIN[strain] || strain };
}

/** A Coinche strain as the other variants name it ("SA" -> "NT"; a suit is itself). */
export function strainName(strain) {
  return STRAIN[strain] || strain;
}

/** Whether an action is coinche or surcoinche. */
export function isCoinche(action) {
  return COINCHE_CALL.test(action || "");
}

/** Whether an action is one of Coinche's calls: a point bid, coinche or surcoinche. */
export function isCoincheCall(action) {
  return isCoinche(action) || pointBid(action) !== null;
}

/** The trump strain of a contract ("120H" -> "H", "80SA" -> "NT"); another variant's
 *  contract is its own strain. */
export function strainOf(contract) {
  const bid = pointBid(contract);
  return bid ? bid.strain : contract;
}

/** The value part of a point bid: "120", "Capot", "Générale" ("Gén." when `short`, for
 *  a cell of the auction's grid). */
export function bidValueText(bid, short = false) {
  if (bid.kind === "points") return String(bid.value);
  return t(`coinche.${bid.kind}${short ? "_short" : ""}`);
}

/** "120 ♥", "Capot ♠", "90 No trumps": a point bid in words; null for anything else. */
export function pointBidLabel(name) {
  const bid = pointBid(name);
  if (!bid) return null;
  const strain = bid.strain.length === 1 ? suitSymbol(bid.strain) : t(`bid.${bid.strain}`);
  return `${bidValueText(bid)} ${strain}`;
}

/** "Coinche", "Surcoinche": Coinche's calls other than bids; null for anything else. */
export function coincheCallLabel(call) {
  return isCoinche(call) ? t(`coinche.call.${call}`) : null;
}

/** A Coinche contract's multiplier in words: "coinched ×2", "surcoinched ×4" (or ×3,
 *  as the table's rules set it); null when the contract is not a point bid or plain. */
export function coincheMultiplierLabel(multiplier, contract) {
  if (!pointBid(contract) || !(multiplier > 1)) return null;
  return t(multiplier === 2 ? "coinche.coinched" : "coinche.surcoinched", { m: multiplier });
}

// The flags that make a Coinche deal's score (COINCHE.md §7), in the order the scale reads.
export const SCALE_FLAGS = ["scoring", "made_rule", "failure_base", "coinche_scope", "surcoinche_multiplier",
  "capot_scoring", "rounding"];
