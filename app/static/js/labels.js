// How the server's facts are named on screen: cards, contracts, calls, declarations,
// outcomes, seats and teams, for the live table and the history pages alike. No rules
// here: the server says what is legal and who won; this module only says how to show it.

import { h, storedFlag } from "./dom.js";
import { t } from "./i18n.js";
import { rankText, suitColour, suitSymbol } from "./cards.js";
import { coincheCallLabel, coincheMultiplierLabel, pointBid, pointBidLabel } from "./coinche-labels.js";

const SUITS = ["C", "D", "H", "S"];
const COUNTERCLOCKWISE = ["bottom", "right", "top", "left"];
const CLOCKWISE = ["bottom", "left", "top", "right"];

/** Whether a contract or call is a suit (C D H S). */
export const isSuit = (name) => SUITS.includes(name);

// ---------------------------------------------------------------- cards and contracts

/** "K♥" */
export function cardLabel(card) {
  return `${rankText(card[0])}${suitSymbol(card[1])}`;
}

/** A suit symbol in the colour the player's deck prints it (red/black or four colours). */
export function suitMark(suit, tag = "span.suit", attrs = { "aria-hidden": "true" }) {
  const colour = suitColour(suit, storedFlag("belote.fourColour", false));
  return h(`${tag}.suit-${suit}`, { ...attrs, style: `color:${colour}` }, suitSymbol(suit));
}

/** A contract with its symbol: "♥ Hearts", "No trumps", "All trumps". */
export function contractLabel(contract) {
  if (!contract) return "";
  const points = pointBidLabel(contract);
  if (points) return points;
  return isSuit(contract) ? `${suitSymbol(contract)} ${t(`bid.${contract}`)}` : t(`bid.${contract}`);
}

/** "×2 doubled", "×4 redoubled" (Coinche's contract: "coinched ×2"), or nothing. */
export function multiplierLabel(multiplier, contract = null) {
  const coinched = coincheMultiplierLabel(multiplier, contract);
  if (coinched) return coinched;
  return multiplier === 4 ? t("bid.redoubled") : multiplier === 2 ? t("bid.doubled") : "";
}

/** A contract for the history pages: its suit in colour, its name, a short multiplier
 *  ("×2"); no contract: "—". */
export function contractMark(contract, multiplier = 1) {
  if (!contract) return h("span.contract-label", {}, "—");
  const points = pointBid(contract);
  if (points) {
    return h("span.contract-label", {}, h("span.contract-name", {}, pointBidLabel(contract)),
      multiplier > 1 ? h("span.multiplier", {}, multiplierLabel(multiplier, contract)) : null);
  }
  return h("span.contract-label", {},
    isSuit(contract) ? suitMark(contract) : null,
    h("span.contract-name", {}, t(`bid.${contract}`)),
    multiplier > 1 ? h("span.multiplier", {}, t(`history.multiplier.${multiplier}`)) : null);
}

// ---------------------------------------------------------------- calls and declarations

/** The label of an auction call as it appears in the log ("Pass", "♥ Hearts", "Double"). */
export function callLabel(bid) {
  const coinche = coincheCallLabel(bid);
  if (coinche) return coinche;
  return bid === "pass" || bid === "double" || bid === "redouble" ? t(`bid.${bid}`)
    : contractLabel(bid);
}

/** A call of the auction, short enough for a grid cell: a suit by its symbol. */
export function callMark(call) {
  if (coincheCallLabel(call) || pointBid(call)) return h(`span.call.call-point`, {}, callLabel(call));
  if (isSuit(call)) {
    const name = t(`bid.${call}`);
    return suitMark(call, "span.call.call-suit.suit", { title: name, "aria-label": name });
  }
  return h(`span.call.call-${call}`, {}, t(`bid.${call}`));
}

/** A combination's name from its kind, as a view ("carre") or a record ("carre-J") has it. */
export function comboName(kind) {
  return t(`combo.${kind.startsWith("carre") ? "carre" : kind}`);
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
  if (kind === "carre") return `${comboName(kind)} ${rankText(cards[0][0])}`;
  const ranks = cards.map((c) => rankText(c[0])).join("-");
  return `${comboName(kind)} ${suitSymbol(cards[0][1])} ${ranks}`;
}

/** A declaration as the view lists it: kind, and its cards once they are shown. */
export function declarationLabel(announcement) {
  if (announcement.cards) return announceLabel(`announce ${announcement.cards.join(" ")}`);
  return comboName(announcement.kind);
}

/** Any legal non-card action's button label. */
export function actionLabel(action, view) {
  if (action.startsWith("announce ")) return announceLabel(action);
  if (action.endsWith("+belot")) return t("play.with_belot", { card: cardLabel(action) });
  if (view && view.turned && isSuit(action) && action === view.turned[1]) {
    return t("bid.take", { suit: suitSymbol(action) });
  }
  return callLabel(action);
}

/** A past deal's outcome as a tag: made, failed, hanging, redeal, or still in progress. */
export function outcomeMark(outcome) {
  return h(`span.h-outcome.h-outcome-${outcome || "on"}`, {}, t(`history.outcome.${outcome || "on"}`));
}

// ---------------------------------------------------------------- seats and teams

/** seat -> "bottom" | "right" | "top" | "left": own seat at the bottom (seat 0 for a
 *  spectator or a replay), the next seats in the table's direction of play (RULES §2). */
export function seatPositions(mySeat, direction) {
  const order = direction === "clockwise" ? CLOCKWISE : COUNTERCLOCKWISE;
  const base = mySeat ?? 0;
  const positions = {};
  for (let i = 0; i < 4; i += 1) positions[(base + i) % 4] = order[i];
  return positions;
}

export const watching = (frame) => frame.seat === null || frame.seat === undefined;

/** A seat of the live table: the player's name, "Bot 2", or "Empty seat". */
export function seatName(table, seat) {
  const held = table.seats[seat];
  if (!held || held.kind === "empty") return t("seat.empty");
  if (held.kind === "bot") return t("seat.bot_name", { n: seat + 1 });
  return held.name;
}

/** The team the viewer plays for (team 0 when watching). */
export function myTeam(frame) {
  return watching(frame) ? 0 : frame.seat % 2;
}

/** "Ana & Ivo": the names of a team's two seats at the live table. */
export function teamName(table, team) {
  return `${seatName(table, team)} & ${seatName(table, team + 2)}`;
}

/** What the viewer's team and the other are called: "Us"/"Them" for a player; for a
 *  spectator, who has no team, the names of each team's seats (team 0 first). */
export function teamLabels(frame) {
  if (watching(frame)) return [teamName(frame.table, 0), teamName(frame.table, 1)];
  return [t("score.us"), t("score.them")];
}

/** A seat of a past match (`GET /api/matches/{id}`): "Ana", or "Bot (hard)". */
export function playerName(seat) {
  if (!seat) return "?";
  if (seat.kind === "bot") return t("history.bot", { level: t(`level.${seat.level}`) });
  return seat.name;
}

/** The seat the guest `me` held in a past match's `seats`, or null if not seated there. */
export function pastSeat(seats, me) {
  const seat = me && seats.find((s) => s.player_id === me.id);
  return seat ? seat.seat : null;
}

/** The team of the guest `me` in a past match's `seats`, or null if not seated there. */
export function seatedTeam(seats, me) {
  const seat = pastSeat(seats, me);
  return seat === null ? null : seat % 2;
}

const COMPASS = { bottom: "south", right: "east", top: "north", left: "west" };

/** Where a seat of a past match sat, as the guest `me` would see the table drawn (own seat
 *  at the bottom): "your partner", "on your left"; for an onlooker, by the compass with
 *  seat 0 south ("North"). */
export function seatWhere(seats, seat, me, direction) {
  const mine = pastSeat(seats, me);
  const position = seatPositions(mine, direction)[seat];
  if (mine === null) return t(`history.where.${COMPASS[position]}`);
  return t(`history.where.${position === "top" ? "partner" : position === "bottom" ? "you" : position}`);
}

/** A seat of a past match named so that bots of one level can be told apart: "Ana",
 *  "Bot (normal), your partner", "Bot (hard), North". */
export function pastPlayerName(seats, seat, me, direction) {
  const info = seats[seat];
  if (!info || info.kind !== "bot") return playerName(info);
  return t("history.bot_at", { bot: playerName(info), where: seatWhere(seats, seat, me, direction) });
}

/** A past match's team as the guest `me` sees it: "Us" / "Them", or, for an onlooker,
 *  its players ("Ana & Bot (hard)"). */
export function teamLabeller(seats, me) {
  const mine = seatedTeam(seats, me);
  const names = (team) => `${playerName(seats[team])} & ${playerName(seats[team + 2])}`;
  return (team) => (mine === null ? t("replay.team", { names: names(team) })
    : t(team === mine ? "score.us" : "score.them"));
}
