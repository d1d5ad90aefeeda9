// Human-readable names of the server's actions, contracts and declarations (no rules here:
// the server says which actions are legal; these only say how to show them).

import { t } from "./i18n.js";
import { rankText, suitSymbol } from "./cards.js";

const SUITS = ["C", "D", "H", "S"];

/** "K♥" */
export function cardLabel(card) {
  return `${rankText(card[0])}${suitSymbol(card[1])}`;
}

/** A contract with its symbol: "♥ Hearts", "No trumps", "All trumps". */
export function contractLabel(contract) {
  if (!contract) return "";
  return SUITS.includes(contract) ? `${suitSymbol(contract)} ${t(`bid.${contract}`)}`
    : t(`bid.${contract}`);
}

export function multiplierLabel(multiplier) {
  return multiplier === 4 ? t("bid.redoubled") : multiplier === 2 ? t("bid.doubled") : "";
}

/** The label of an auction call as it appears in the log ("Pass", "♥ Hearts", "Double"). */
export function callLabel(bid) {
  return bid === "pass" || bid === "double" || bid === "redouble" ? t(`bid.${bid}`)
    : contractLabel(bid);
}

/** The kind of a combination from its cards: four of a rank, or a run by its length. */
function comboKind(cards) {
  if (cards.length === 4 && cards.every((c) => c[0] === cards[0][0])) return "carre";
  return cards.length === 3 ? "tierce" : cards.length === 4 ? "quarte" : "quint";
}

/** "announce QH KH AH" -> "Tierce ♥ Q-K-A"; "announce JC JD JH JS" -> "Carré J". */
export function announceLabel(action) {
  const cards = action.split(" ").slice(1);
  const kind = comboKind(cards);
  if (kind === "carre") return `${t("combo.carre")} ${rankText(cards[0][0])}`;
  const ranks = cards.map((c) => rankText(c[0])).join("-");
  return `${t(`combo.${kind}`)} ${suitSymbol(cards[0][1])} ${ranks}`;
}

/** A declaration as the view lists it: kind, and its cards once they are shown. */
export function declarationLabel(announcement) {
  if (announcement.cards) return announceLabel(`announce ${announcement.cards.join(" ")}`);
  return t(`combo.${announcement.kind}`);
}

/** Any legal non-card action's button label. */
export function actionLabel(action, view) {
  if (action.startsWith("announce ")) return announceLabel(action);
  if (action.endsWith("+belot")) return t("play.with_belot", { card: cardLabel(action) });
  if (view && view.turned && SUITS.includes(action) && action === view.turned[1]) {
    return t("bid.take", { suit: suitSymbol(action) });
  }
  return callLabel(action);
}
