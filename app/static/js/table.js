// A table page: the socket feeds the store; frames are shown in order (a finished trick
// stays a moment); every render comes from the frame shown plus a little local UI state.

import { api, guest } from "./api.js";
import { mountChat } from "./chat.js";
import { h, fill, storedFlag } from "./dom.js";
import { t } from "./i18n.js";
import { protocol } from "./protocol.js";
import { TableSocket } from "./socket.js";
import { createStore } from "./store.js";
import { board, updateRing } from "./table-view.js";
import { frameSounds, hurry, play } from "./sounds.js";
import { PLATE_MS, markHandTop, timedOut, updateTurnClock } from "./turn-timer.js";
import { lastTrick, lastTrickContent, matchOver, scoreSheetContent } from "./table-dialogs.js";
import { setupPanel } from "./setup.js";
import { showRulesDialog } from "./rules.js";
import { seatPositions } from "./labels.js";
import { noticeLeavers } from "./community.js";
import { toast } from "./toasts.js";
import { tapGuard } from "./confirm-tap.js";
import { paced } from "./pace.js";

const HOLD_MS = 1000; // a finished trick stays in the middle this long
const SWEEP_MS = 380;
const CATCH_UP = 4; // more frames than this waiting: skip the pauses

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** The trick an action event's card completed, as the server tells it (`event.trick`:
 *  leader, cards, winner, points), to show before the state that follows it. */
function finishedTrick(frame) {
  return (frame.type === "event" && frame.event && frame.event.trick) || null;
}

/** The state before `frame`'s card was played, that card gone from its hand and nobody to
 *  move: shown while the finished trick stays in the middle, so the next turn (or deal)
 *  does not appear, nor take clicks, under the old trick. */
function heldFrame(before, frame) {
  const { seat, action } = frame.event;
  const card = action.replace("+belot", "");
  const view = before.view;
  const sizes = view.hand_sizes.map((count, s) => (s === seat ? Math.max(0, count - 1) : count));
  return { ...before, turn: null, deadline: null,
    view: { ...view, hand_sizes: sizes, legal_actions: [], hand: view.hand.filter((c) => c !== card) } };
}

/** The top bar as drawn, for what app.css places under it: its height (the bidding log;
 *  on a phone a deal's summary), how far down it reaches over the partner's plate (the
 *  plate and its cards), and whether its title still shows the table's name.  Its buttons
 *  wrap in a longer language or beside a long contract, a house rule's line makes its score
 *  taller: a fixed height would be covered. */
function markTopbar(section, bar) {
  // Beside a deal's summary the title shrinks to what is left, cut with an ellipsis: short
  // of the table's name it says nothing ("e…"), so it is hidden (its room kept: no reflow),
  // before what reaches over the partner is measured.
  const title = bar.querySelector(".table-title");
  const name = title && title.querySelector("strong");
  if (name) title.classList.toggle("cut", title.clientWidth < name.getBoundingClientRect().width);
  const drawn = bar.getBoundingClientRect();
  const plate = section.querySelector(".plate.pos-top");
  const column = plate && plate.getBoundingClientRect();
  let over = 0;
  if (column) {
    for (const item of bar.querySelectorAll(".topbar > :not(.topbar-right), .topbar-right > *")) {
      const box = item.getBoundingClientRect();
      if (item.checkVisibility({ visibilityProperty: true }) && box.left < column.right && column.left < box.right) {
        over = Math.max(over, box.bottom - drawn.top);
      }
    }
  }
  setLength(section, "--topbar-live", drawn.height);
  setLength(section, "--topbar-over-partner", over);
}

function setLength(el, name, px) {
  const value = `${Math.ceil(px)}px`;
  if (el.style.getPropertyValue(name) !== value) el.style.setProperty(name, value);
}

export function renderTable(root, ctx, tableId) {
  const me = guest();
  const store = createStore();
  const ui = {
    focus: 0, keyboard: false, belotChoice: null, held: null,
    seenTrickCards: new Set(), summary: null, overSummary: null, busy: false, clockOffset: 0,
    timeout: null, timedOut: new Map(), // the action the turn timer chose for me; seat -> its mark's timer
  };
  let shown = null; // the frame on screen
  const queue = [];
  let pumping = false;
  let closed = false; // the page was left: the pump stops, nothing draws any more
  const guard = tapGuard(); // a touch's first tap on a card or a bid only arms it

  const section = h("section#table", { "data-table-id": tableId, "data-status": "", "data-phase": "",
    "data-turn": "", "data-my-seat": "", "data-version": "", "data-deal": "" });
  const felt = h("div.felt");
  // Each draw puts up a new top bar, watched from then on: a resize rewraps it, the house
  // rules' line fills in once the rules are fetched (measured before the frame is painted).
  // Its title too: beside a summary its room changes with the score's and the contract's
  // width, and the bar's own size need not.
  const topbarWatch = new ResizeObserver(([entry]) => markTopbar(section, entry.target.closest(".topbar")));
  // The close event comes a task later: a summary reopened meanwhile keeps its content.
  // A closed dialog keeps nothing: it is filled afresh (in the language of the day) when opened.
  const scoreDialog = h("dialog#score-sheet.dialog", { onclose: () => {
    if (!scoreDialog.open) { ui.summary = null; ui.raisedTo = null; scoreDialog.replaceChildren(); }
  } });
  const trickDialog = h("dialog#last-trick.dialog", { onclose: () => trickDialog.replaceChildren() });
  const rulesDialog = h("dialog#rules-dialog.dialog.rules-dialog"); // the table plays on behind it
  section.append(felt, scoreDialog, trickDialog, rulesDialog);
  fill(root, section);
  fill(felt, h("div.loading", {}, t("table.connecting")));
  const chat = mountChat(section, { store, tableId, me,
    say: (message) => socket.raw({ type: "chat", ...message }) });

  const settings = () => ({ fourColour: storedFlag("belote.fourColour", false) });
  const animations = () => storedFlag("belote.animations", true)
    && !matchMedia("(prefers-reduced-motion: reduce)").matches;

  const socket = new TableSocket(tableId, me.token, {
    onFrame: (message) => store.receive(message),
    onStatus: (status) => store.setConnection(status),
    onClock: (offset) => { ui.clockOffset = offset; },
    onError: (error, resent) => {
      ui.belotChoice = null;
      if (!(resent && error.code === "stale_version")) toast(error);
      render();
    },
    onClosed: (code) => {
      const close = protocol.close_codes;
      if (code === close.BAD_TOKEN || code === close.SESSION_ENDED) {
        // A refused token: the page asks for a name again, no banner; an ended session
        // (logged out elsewhere): the log-in page says so. Neither reconnects.
        ctx.forgetGuest(code === close.SESSION_ENDED);
        return;
      }
      if (code === close.NO_TABLE) fill(felt, h("div.panel.gone", {}, h("h2", {}, t("table.gone")), h("a.btn.primary", { href: "#/" }, t("nav.lobby"))));
      ctx.connection(code === close.REPLACED ? "replaced" : "closed");
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
    while (queue.length && !closed) {
      const { previous, frame } = queue.shift();
      const before = previous || shown;
      const live = queue.length < CATCH_UP;
      if (live) noticeLeavers(before, frame);
      const done = live && before && before.view ? finishedTrick(frame) : null;
      const sounds = live ? frameSounds(before, frame) : [];
      if (sounds[0] === "card") play(sounds.shift()); // with the card, before the trick's pause
      noteTimeout(frame);
      if (done) {
        shown = heldFrame(before, frame);
        ui.held = done;
        ui.belotChoice = null;
        render();
        await sleep(paced(HOLD_MS));
        if (closed) break;
        play("trick");
        const trick = section.querySelector("#trick");
        if (animations() && trick) {
          // The cards on screen slide to the winner (a transition needs the same elements).
          const positions = seatPositions(frame.seat, frame.table.options.table_direction);
          trick.classList.add(`sweep-${positions[done.winner]}`);
          await sleep(paced(SWEEP_MS));
          if (closed) break;
        }
        ui.held = null;
      }
      shown = frame;
      if (ui.notice && frame.view && (frame.view.deal !== ui.notice.deal || frame.view.phase !== "auction")) {
        clearNotice(); // it told of the redeal: it must not cover the play that follows
      }
      if (frame.table.status !== "playing" && scoreDialog.open && !scoreDialog.matches(":modal")) {
        scoreDialog.close(); // an older deal's summary: the match's end takes the table
      }
      const results = frame.event && frame.event.deal_results;
      if (results && results.length) {
        if (frame.table.status === "over") ui.overSummary = results;
        else if (results.every((r) => r.outcome === "redeal")) notice(t("outcome.redeal"));
        else {
          const [was, now] = [before, frame].map((f) => (f && f.view ? f.view.target : null));
          ui.raisedTo = was !== null && now > was ? now : null; // a valat raised it
          openScores(results);
        }
      }
      render();
      for (const sound of sounds) play(sound);
    }
    pumping = false;
  }

  /** The turn timer acted for a seat: the player is told above the hand until they act;
   *  another seat's plate is marked a moment. */
  function noteTimeout(frame) {
    const lapse = timedOut(frame);
    if (!lapse) return;
    if (lapse.seat === frame.seat) {
      ui.timeout = lapse.action;
      return;
    }
    clearTimeout(ui.timedOut.get(lapse.seat));
    ui.timedOut.set(lapse.seat, setTimeout(() => { ui.timedOut.delete(lapse.seat); render(); }, PLATE_MS));
  }

  function closeTimeout() {
    ui.timeout = null;
    render();
  }

  /** A short message in the middle of the table, e.g. after a deal everyone passed; it
   *  lasts a moment, at most while the auction of the deal it was shown in goes on. */
  function notice(text) {
    ui.notice = { text, deal: shown.view ? shown.view.deal : null };
    clearTimeout(ui.noticeTimer);
    ui.noticeTimer = setTimeout(() => { clearNotice(); render(); }, 2500);
  }

  function clearNotice() {
    ui.notice = null;
    clearTimeout(ui.noticeTimer);
  }

  function send(action) {
    // Only from the newest state: a click on a frame the table has moved past is not sent.
    if (!shown || store.frame.version !== shown.version) return;
    ui.belotChoice = null;
    ui.timeout = null; // the player is acting again: the timer's notice is old news
    socket.act(action, shown.version);
    render();
  }

  /** A card chosen: by a key at once, by a tap once confirmed (confirm-tap.js). */
  function onCard(card, { key = false } = {}) {
    const view = shown && shown.view;
    if (!view || view.phase !== "play") return;
    const legal = view.legal_actions;
    const plain = legal.includes(card), belot = legal.includes(`${card}+belot`);
    if ((plain || belot) && !key && !guard.tap("card", card, shown.version)) {
      render();
    } else if (plain && belot) {
      ui.belotChoice = card;
      render();
    } else if (plain || belot) {
      send(belot ? `${card}+belot` : card);
    }
  }

  /** A button of the action panel; a call of the auction once confirmed (confirm-tap.js). */
  function onAction(action) {
    const view = shown && shown.view;
    if (view && view.phase === "auction" && !guard.tap("bid", action, shown.version)) render();
    else send(action);
  }

  /** The score sheet: modal when asked for; a deal's summary opens beside the table
   *  instead, since the next deal is already running and the turn must stay playable. */
  function openScores(summary = null) {
    ui.summary = summary;
    fill(scoreDialog, scoreSheetContent(shown, ui.summary, () => scoreDialog.close(), ui.raisedTo));
    if (summary) {
      if (!scoreDialog.open) {
        const focused = document.activeElement;
        scoreDialog.show(); // moves the focus into the dialog: give it back to the table
        if (focused && focused !== document.body) focused.focus();
        else document.activeElement.blur();
      }
    } else if (!scoreDialog.matches(":modal")) {
      if (scoreDialog.open) scoreDialog.close();
      scoreDialog.showModal();
    }
    scoreDialog.classList.toggle("floating", !scoreDialog.matches(":modal"));
  }

  function openLastTrick() {
    if (!shown || !lastTrick(shown.view)) return;
    fill(trickDialog, lastTrickContent(shown, () => trickDialog.close(), settings()));
    if (!trickDialog.open) trickDialog.showModal();
  }

  function rematch() {
    return act(async () => {
      const table = await api("POST", `/api/tables/${tableId}/rematch`);
      ctx.navigate(`#/t/${table.id}`);
    });
  }

  /** One REST request at a time (a double click must not send it twice); the panel's
   *  buttons are disabled while it runs. */
  async function act(call) {
    if (ui.busy) return;
    ui.busy = true;
    render();
    try {
      await call();
    } catch (exc) {
      toast(exc);
    } finally {
      ui.busy = false;
      render();
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
    let center = ui.notice ? h("div.notice", { role: "status" }, ui.notice.text) : null;
    if (table.status === "waiting") center = setupPanel(frame, act, ui.busy);
    else if ((table.status === "over" || table.status === "closed") && !ui.held) {
      center = matchOver(frame, { busy: ui.busy, onRematch: rematch, onScores: () => openScores(), summary: ui.overSummary });
    }
    const autoplay = onAutoplay(frame);
    if (!autoplay) ui.resumeSent = false;
    const animate = animations();
    felt.className = `felt phase-${view ? view.phase : "waiting"} status-${table.status}${animate ? " animated" : ""}`;
    fill(felt, board(frame, {
      ...ui, animate, center, settings: settings(), autoplay, onResume: resume,
      onCard, onAction, onLastTrick: openLastTrick, onScores: () => openScores(), onTimeoutClose: closeTimeout,
      onRules: () => showRulesDialog(rulesDialog, frame.table), chatButton: chat.button,
    }));
    guard.mark(felt, frame.version);
    markHandTop(felt);
    topbarWatch.disconnect();
    const bar = felt.querySelector(".topbar");
    for (const watched of [bar, bar && bar.querySelector(".table-title")]) if (watched) topbarWatch.observe(watched);
    if (view) for (const card of view.trick.cards) ui.seenTrickCards.add(`${view.deal}:${card}`);
    if (scoreDialog.open) fill(scoreDialog, scoreSheetContent(frame, ui.summary, () => scoreDialog.close(), ui.raisedTo));
    if (trickDialog.open && lastTrick(view)) {
      fill(trickDialog, lastTrickContent(frame, () => trickDialog.close(), settings()));
    }
  }

  /** True while a bot plays the player's own seat after missed turns (`autoplay`). */
  function onAutoplay(frame) {
    if (!frame || frame.table.status !== "playing" || frame.seat === null || frame.seat === undefined) return false;
    const held = frame.table.seats[frame.seat];
    return Boolean(held && held.autoplay);
  }

  /** The protocol's `resume`: the seat back from the cover bot. */
  function resume() {
    socket.resume();
    ui.resumeSent = true;
    ui.resumedAt = Date.now();
    clearTimeout(ui.resumeTimer); // no answer (the socket was down): the button comes back
    ui.resumeTimer = setTimeout(() => { ui.resumeSent = false; render(); }, 3000);
    render();
  }

  /** A pointer or a key on the page: the player is clearly back. */
  function onPresence() {
    if (onAutoplay(store.frame) && !(ui.resumedAt && Date.now() - ui.resumedAt < 2000)) resume();
  }

  function onKey(event) {
    if (!shown || !shown.view || event.target.closest("input, select, textarea")) return;
    if (section.querySelector("dialog:modal") || event.ctrlKey || event.metaKey || event.altKey) return;
    const count = shown.view.hand.length;
    const key = event.key;
    if ((key === "ArrowLeft" || key === "ArrowRight") && count) {
      ui.focus = ui.keyboard ? (ui.focus + (key === "ArrowRight" ? 1 : count - 1)) % count : ui.focus;
      ui.keyboard = true;
      event.preventDefault();
      render();
    } else if (key === "Enter" && ui.keyboard && count && !event.target.closest("button, a")) {
      const card = section.querySelectorAll("#hand [data-card]")[ui.focus];
      if (card) onCard(card.dataset.card, { key: true });
      event.preventDefault();
    } else if (key === "Escape" && ui.belotChoice) {
      ui.belotChoice = null;
      render();
    } else if (key === "Escape" && scoreDialog.open) {
      scoreDialog.close(); // the summary beside the table is not modal: Escape is ours
    } else {
      const call = { p: "pass", c: "C", d: "D", h: "H", s: "S", n: "NT", a: "AT", x: "double", r: "redouble" }[key.toLowerCase()];
      if (call && shown.view.phase === "auction" && shown.view.legal_actions.includes(call)) send(call);
    }
  }
  document.addEventListener("keydown", onKey);
  document.addEventListener("keydown", onPresence);
  document.addEventListener("pointerdown", onPresence);
  window.addEventListener("belote:redraw", render);

  const clock = setInterval(() => {
    for (const ring of section.querySelectorAll(".ring")) updateRing(ring);
    markHandTop(felt); // the window may have turned or changed size
    const turnClock = section.querySelector("#turn-clock");
    if (turnClock) hurry(turnClock.dataset.deadline, updateTurnClock(turnClock));
  }, 250);

  return () => {
    closed = true;
    topbarWatch.disconnect();
    queue.length = 0;
    clearInterval(clock);
    clearTimeout(ui.noticeTimer);
    clearTimeout(ui.resumeTimer);
    for (const timer of ui.timedOut.values()) clearTimeout(timer);
    document.removeEventListener("keydown", onKey);
    document.removeEventListener("keydown", onPresence);
    document.removeEventListener("pointerdown", onPresence);
    window.removeEventListener("belote:redraw", render);
    chat.destroy();
    socket.close();
    ctx.connection("idle");
  };
}
