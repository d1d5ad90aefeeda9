// Where seats sit on screen and what they are called; the table's own data only.

import { t } from "./i18n.js";

const COUNTERCLOCKWISE = ["bottom", "right", "top", "left"];
const CLOCKWISE = ["bottom", "left", "top", "right"];

/** seat -> "bottom" | "right" | "top" | "left": own seat at the bottom (seat 0 for a
 *  spectator), the next seats in the table's direction of play (RULES §2). */
export function seatPositions(mySeat, direction) {
  const order = direction === "clockwise" ? CLOCKWISE : COUNTERCLOCKWISE;
  const base = mySeat ?? 0;
  const positions = {};
  for (let i = 0; i < 4; i += 1) positions[(base + i) % 4] = order[i];
  return positions;
}

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

/** "Ana & Ivo": the names of a team's two seats. */
export function teamName(table, team) {
  return `${seatName(table, team)} & ${seatName(table, team + 2)}`;
}

export const watching = (frame) => frame.seat === null || frame.seat === undefined;

/** What the viewer's team and the other are called: "Us"/"Them" for a player; for a
 *  spectator, who has no team, the names of each team's seats (team 0 first). */
export function teamLabels(frame) {
  if (watching(frame)) return [teamName(frame.table, 0), teamName(frame.table, 1)];
  return [t("score.us"), t("score.them")];
}
