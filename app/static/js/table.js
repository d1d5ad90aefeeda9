// A table page: the socket feeds the store; frames are shown in order (a finished trick
// stays a moment); every render comes from the frame shown plus a little local UI state.

import { api, guest } from "./api.js";
import { h, fill, storedFlag } from "./dom.js";
import { t } from "./i18n.js";
import { TableSocket } from "./socket.js";
import { createStore } from "./store.js";
import { board, isCard, updateRing } from "./table-view.js";
import { lastTrickContent, matchOver, scoreSheetContent } from "./table-dialogs.js";
import { setupPanel } from "./setup.js";
import { seatPositions } from "./seats.js";
import { toast } from "./toasts.js";

const HOLD_MS = 1000; // a finished trick stays in the middle this long
const SWEEP_MS = 380;
const CATCH_UP = 4; // more frames than this waiting: skip the pauses

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** The trick an action event just completed, to show before the state that follows it. */
function finishedTrick(previous, frame) {
  const before = previous && previous.view, after = frame.view;
  if (!before || !after || frame.type !== "event" || !frame.event || frame.event.kind !== "action") return null;
  if (before.phase !== "play") return null;
  if (after.deal === before.deal && after.phase === "play" && after.tricks.length > before.tricks.length) {
    const last = after.tricks[after.tricks.length - 1];
    return { leader: last.leader, cards: last.cards, winner: after.trick.leader };
  }
  if (after.deal !== before.deal || after.phase === "over") {
    const card = frame.event.action.replace("+belot", "");
    if (!isCard(card)) return null;
    return { leader: before.trick.leader, cards: [...before.trick.cards, card], winner: null };
  }
  return null;
}

export function renderTable(root, ctx, tableId) {
  const me = guest();
  const store = createStore();
  const ui = {
    focus: 0, keyboard: false, belotChoice: null, held: null,
    seenTrickCards: new Set(), summary: null, overSummary: null,
  };
  let shown = null; // the frame on screen
  const queue = [];
  let pumping = false;

  const section = h("section#table", { "data-table-id": tableId, "data-status": "", "data-phase": "",
    "data-turn": "", "data-my-seat": "", "data-version": "", "data-deal": "" });
  const felt = h("div.felt");
  const scoreDialog = h("dialog#score-sheet.dialog", { onclose: () => { ui.summary = null; } });
  const trickDialog = h("dialog#last-trick.dialog");
  section.append(felt, scoreDialog, trickDialog);
  fill(root, section);
  fill(felt, h("div.loading", {}, t("table.connecting")));

  const settings = () => ({ fourColour: storedFlag("belote.fourColour", false) });
  const animations = () => storedFlag("belote.animations", true)
    && !matchMedia("(prefers-reduced-motion: reduce)").matches;

  const socket = new TableSocket(tableId, me.token, {
    onFrame: (message) => store.receive(message),
    onStatus: (status) => store.setConnection(status),
    onError: (error, resent) => {
      ui.belotChoice = null;
      if (!(resent && error.code === "stale_version")) toast(error);
      render();
    },
    onClosed: (code) => {
      if (code === 4003) ctx.forgetGuest();
      if (code === 4004) fill(felt, h("div.panel.gone", {}, h("h2", {}, t("table.gone")), h("a.btn.primary", { href: "#/" }, t("nav.lobby"))));
      ctx.connection(code === 4001 ? "replaced" : "closed");
    },
  });

  store.subscribe((change) => {
    if (change.kind === "connection") {
      ctx.connection(store.connection);
      return;
    }
    queue.push(change);
    pump();
  });

  async function pump() {
    if (pumping) return;
    pumping = true;
    while (queue.length) {
      const { previous, frame } = queue.shift();
      const done = queue.length < CATCH_UP ? finishedTrick(previous || shown, frame) : null;
      if (done) {
        shown = frame;
        ui.held = done;
        render();
        await sleep(HOLD_MS);
        const trick = section.querySelector("#trick");
        if (animations() && done.winner !== null && trick) {
          // The cards on screen slide to the winner (a transition needs the same elements).
          const positions = seatPositions(frame.seat, frame.table.options.table_direction);
          trick.classList.add(`sweep-${positions[done.winner]}`);
          await sleep(SWEEP_MS);
        }
        ui.held = null;
      }
      shown = frame;
      const results = frame.event && frame.event.deal_results;
      if (results && results.length) {
        if (frame.table.status === "over") ui.overSummary = results;
        else if (results.every((r) => r.outcome === "redeal")) notice(t("outcome.redeal"));
        else openScores(results);
      }
      render();
    }
    pumping = false;
  }

  /** A short message in the middle of the table, e.g. after a deal everyone passed. */
  function notice(text) {
    ui.notice = text;
    clearTimeout(ui.noticeTimer);
    ui.noticeTimer = setTimeout(() => { ui.notice = null; render(); }, 2500);
  }

  function send(action) {
    // Only from the newest state: a click on a frame the table has moved past is not sent.
    if (!shown || store.frame.version !== shown.version) return;
    ui.belotChoice = null;
    socket.act(action, shown.version);
    render();
  }

  function onCard(card) {
    const view = shown && shown.view;
    if (!view || view.phase !== "play") return;
    const legal = view.legal_actions;
    const plain = legal.includes(card), belot = legal.includes(`${card}+belot`);
    if (plain && belot) {
      ui.belotChoice = card;
      render();
    } else if (plain || belot) {
      send(belot ? `${card}+belot` : card);
    }
  }

  function openScores(summary = null) {
    ui.summary = summary;
    fill(scoreDialog, scoreSheetContent(shown, ui.summary, () => scoreDialog.close()));
    if (!scoreDialog.open) scoreDialog.showModal();
  }

  function openLastTrick() {
    if (!shown || !shown.view || !shown.view.tricks.length) return;
    fill(trickDialog, lastTrickContent(shown, () => trickDialog.close(), settings()));
    if (!trickDialog.open) trickDialog.showModal();
  }

  async function rematch() {
    try {
      const table = await api("POST", `/api/tables/${tableId}/rematch`);
      ctx.navigate(`#/t/${table.id}`);
    } catch (exc) {
      toast(exc);
    }
  }

  async function act(call) {
    try {
      await call();
    } catch (exc) {
      toast(exc);
    }
  }

  function render() {
    const frame = shown;
    if (!frame) return;
    const { table, view } = frame;
    Object.assign(section.dataset, {
      tableId, version: frame.version, status: table.status, phase: view ? view.phase : "",
      turn: frame.turn ?? "", mySeat: frame.seat ?? "", deal: view ? view.deal : "",
    });
    if (ui.focus >= (view ? view.hand.length : 0)) ui.focus = Math.max(0, (view ? view.hand.length : 1) - 1);
    let center = ui.notice ? h("div.notice", { role: "status" }, ui.notice) : null;
    if (table.status === "waiting") center = setupPanel(frame, act);
    else if ((table.status === "over" || table.status === "closed") && !ui.held) {
      center = matchOver(frame, { onRematch: rematch, onScores: () => openScores(), summary: ui.overSummary });
    }
    const animate = animations();
    felt.className = `felt phase-${view ? view.phase : "waiting"} status-${table.status}${animate ? " animated" : ""}`;
    fill(felt, board(frame, {
      ...ui, animate, center, settings: settings(),
      onCard, onAction: send, onLastTrick: openLastTrick, onScores: () => openScores(),
    }));
    if (view) for (const card of view.trick.cards) ui.seenTrickCards.add(`${view.deal}:${card}`);
    if (scoreDialog.open) fill(scoreDialog, scoreSheetContent(frame, ui.summary, () => scoreDialog.close()));
  }

  function onKey(event) {
    if (!shown || !shown.view || event.target.closest("input, select, textarea")) return;
    if (scoreDialog.open || trickDialog.open || event.ctrlKey || event.metaKey || event.altKey) return;
    const count = shown.view.hand.length;
    const key = event.key;
    if ((key === "ArrowLeft" || key === "ArrowRight") && count) {
      ui.focus = ui.keyboard ? (ui.focus + (key === "ArrowRight" ? 1 : count - 1)) % count : ui.focus;
      ui.keyboard = true;
      event.preventDefault();
      render();
    } else if (key === "Enter" && ui.keyboard && count && !event.target.closest("button, a")) {
      const card = section.querySelectorAll("#hand [data-card]")[ui.focus];
      if (card) onCard(card.dataset.card);
      event.preventDefault();
    } else if (key === "Escape" && ui.belotChoice) {
      ui.belotChoice = null;
      render();
    } else {
      const call = { p: "pass", c: "C", d: "D", h: "H", s: "S", n: "NT", a: "AT", x: "double", r: "redouble" }[key.toLowerCase()];
      if (call && shown.view.phase === "auction" && shown.view.legal_actions.includes(call)) send(call);
    }
  }
  document.addEventListener("keydown", onKey);
  window.addEventListener("belote:redraw", render);

  const clock = setInterval(() => {
    for (const ring of section.querySelectorAll(".ring")) updateRing(ring);
  }, 250);

  return () => {
    clearInterval(clock);
    clearTimeout(ui.noticeTimer);
    document.removeEventListener("keydown", onKey);
    window.removeEventListener("belote:redraw", render);
    socket.close();
    ctx.connection("idle");
  };
}
