// The turn timer said where the player looks: the time left by the hand while it is their
// turn, and what the server chose when a turn ran out (`by: "timeout"`, docs/protocol.md
// section 6): told to the player by the hand until they act, and on the plate to others.

import { h, icon } from "./dom.js";
import { t } from "./i18n.js";
import { callLabel, announceLabel, cardLabel } from "./labels.js";

const URGENT_MS = 5000; // the last seconds of a turn, said louder
export const PLATE_MS = 5000; // how long the other seats see a timed-out seat's mark

/** The seat's own timed turn: a bar and the seconds left, near its hand; null when it is
 *  not the viewer's turn or nothing times it (a bot's turn, a frame held on a trick). */
function turnClock(frame, clockOffset) {
  const mine = frame.seat !== null && frame.seat !== undefined && frame.turn === frame.seat;
  if (!mine || !frame.deadline || frame.table.status !== "playing") return null;
  const clock = h("div#turn-clock", {
    role: "timer", "data-testid": "turn-clock",
    dataset: { deadline: frame.deadline - clockOffset, total: frame.table.turn_seconds * 1000 },
  },
  h("span.turn-clock-label", {}, t("turn_clock.your_turn")),
  h("span.turn-clock-seconds"),
  h("span.turn-clock-bar", { "aria-hidden": "true" }, h("span.turn-clock-fill")));
  updateTurnClock(clock);
  return clock;
}

/** The clock of the viewer's turn and the notice of what the timer last did for them
 *  (`ui.timeout`, an action). A panel the player must answer (calls, declarations, the
 *  belot question) takes them at its top, where the player looks; else they stand by the
 *  hand: the elements to place there. */
export function turnNotes(panel, frame, ui) {
  const notes = [turnClock(frame, ui.clockOffset),
    ui.timeout ? timeoutNotice(timeoutText(ui.timeout, frame.table.variant), ui.onTimeoutClose) : null,
  ].filter(Boolean);
  if (!panel.matches(".panel.mine, .panel.declare, .panel.choice")) return notes;
  for (const note of notes) note.classList.add("in-panel");
  panel.prepend(...notes);
  return [];
}

/** Where the top of the player's hand is, as `--hand-top` on the felt (px from its bottom):
 *  the clock and the notice stand just above it, wherever the layout puts the hand. */
export function markHandTop(felt) {
  const hand = felt.querySelector("#hand");
  if (!hand) return;
  const top = felt.getBoundingClientRect().bottom - hand.getBoundingClientRect().top;
  felt.style.setProperty("--hand-top", `${Math.round(top)}px`);
}

/** Move the clock to the time left now (the table's clock calls it); the ms left. */
export function updateTurnClock(clock) {
  const left = timeLeft(clock);
  const fraction = left / Number(clock.dataset.total);
  clock.querySelector(".turn-clock-fill").style.transform = `scaleX(${fraction})`;
  clock.querySelector(".turn-clock-seconds").textContent = t("turn_clock.seconds", { seconds: Math.ceil(left / 1000) });
  clock.classList.toggle("urgent", left <= URGENT_MS);
  return left;
}

/** The ms left of a turn whose element carries its `deadline` and `total` (ms): never more
 *  than the turn's length, which an estimate of the server's clock a little off would give
 *  ("31 s" on a 30 s turn), nor less than nothing. */
export function timeLeft(el) {
  return Math.min(Number(el.dataset.total), Math.max(0, Number(el.dataset.deadline) - Date.now()));
}

/** The action the timer chose in `frame`'s event, with its seat; null for any other. */
export function timedOut(frame) {
  const event = frame.type === "event" ? frame.event : null;
  if (!event || event.kind !== "action" || event.by !== "timeout") return null;
  return { seat: event.seat, action: event.action };
}

/** What the server did for the player, in words: passed, bid, played a card, declared. */
function timeoutText(action, variant) {
  if (action.startsWith("announce ")) return t("timeout.declared", { combination: announceLabel(action) });
  if (action.endsWith("+belot")) {
    return t("timeout.played_belot", { card: cardLabel(action), belot: t(`combo.belot.${variant}`) });
  }
  if (/^[789TJQKA][CDHS]$/.test(action)) return t("timeout.played", { card: cardLabel(action) });
  if (action === "pass" || action === "double" || action === "redouble") return t(`timeout.${action}`);
  return t("timeout.bid", { call: callLabel(action) });
}

/** The player's own notice, above the hand until they act or close it. */
function timeoutNotice(text, onClose) {
  return h("div#timeout-notice", { role: "alert", "data-testid": "timeout-notice" },
    stopwatch(),
    h("span.timeout-text", {}, text),
    h("button.btn.ghost.timeout-close", { type: "button", onclick: onClose, "aria-label": t("timeout.close") }, "✕"));
}

/** A stopwatch, drawn (no font has to hold the emoji). */
function stopwatch() {
  return icon("timeout-icon", '<circle cx="12" cy="14" r="8" fill="none" stroke="currentColor" stroke-width="2"/>'
    + '<path d="M9 2h6M12 2v4M12 14l3.5-3.5" stroke="currentColor" stroke-width="2" stroke-linecap="round"/>');
}

/** The mark on another seat's plate for a moment after the timer played for it. */
export function plateTimeout() {
  return h("span.timed-out", { "data-testid": "timed-out" }, t("timeout.plate"));
}
