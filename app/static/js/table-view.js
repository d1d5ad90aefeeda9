// The table drawn from one frame: plates around the felt, the trick, the hand, the
// action panel and the auction log.  Pure functions of (frame, ui); no state here.

import { h, icon, storedFlag, storeFlag } from "./dom.js";
import { t } from "./i18n.js";
import { cardBack, cardSvg, sortHand, suitSymbol } from "./cards.js";
import {
  actionLabel, callLabel, cardLabel, contractLabel, declarationLabel, isSuit, multiplierLabel, myTeam,
  seatName, seatPositions, teamLabels, watching,
} from "./labels.js";
import { lastTrick } from "./table-dialogs.js";
import { houseRulesLine } from "./house-rules.js";
import { plateTimeout, timeLeft, turnNotes } from "./turn-timer.js";
import { ratingChange, ratingMark } from "./rating.js";
import { coincheAuction, isCoincheAuction } from "./coinche-auction.js";
import { strainOf } from "./coinche-labels.js";
import { muteAtTable, plateReputation, playerMenu } from "./community.js";

const RING = 2 * Math.PI * 27;

/** The countdown ring around the plate of a human whose turn it is; `clockOffset` (the
 *  server's clock minus the browser's) puts the server's deadline on the browser's clock. */
function ring(frame, clockOffset) {
  const svgNS = "http://www.w3.org/2000/svg";
  const root = document.createElementNS(svgNS, "svg");
  root.setAttribute("viewBox", "0 0 60 60");
  root.setAttribute("class", "ring");
  root.dataset.deadline = frame.deadline - clockOffset;
  root.dataset.total = frame.table.turn_seconds * 1000;
  const track = document.createElementNS(svgNS, "circle");
  const bar = document.createElementNS(svgNS, "circle");
  for (const c of [track, bar]) {
    c.setAttribute("cx", 30); c.setAttribute("cy", 30); c.setAttribute("r", 27);
  }
  track.setAttribute("class", "ring-track");
  bar.setAttribute("class", "ring-bar");
  bar.setAttribute("stroke-dasharray", RING);
  root.append(track, bar);
  updateRing(root);
  return root;
}

/** Move a ring to the time left now; called by the table's clock. */
export function updateRing(root) {
  const left = timeLeft(root);
  const fraction = left / Number(root.dataset.total);
  const bar = root.querySelector(".ring-bar");
  bar.setAttribute("stroke-dashoffset", String(RING * (1 - fraction)));
  root.classList.toggle("low", left < 8000);
  const label = root.parentElement && root.parentElement.querySelector(".seconds");
  if (label) label.textContent = String(Math.ceil(left / 1000));
}

/** A robot's head, drawn (no emoji font needed). */
function botIcon() {
  return icon("bot-icon", '<path d="M12 2v3" stroke="currentColor" stroke-width="2" stroke-linecap="round"/>'
    + '<circle cx="12" cy="2.5" r="1.5" fill="currentColor"/>'
    + '<rect x="4" y="6" width="16" height="13" rx="4" fill="currentColor"/>'
    + '<circle cx="9" cy="12" r="2" fill="#1d1d1f"/><circle cx="15" cy="12" r="2" fill="#1d1d1f"/>'
    + '<rect x="9" y="16" width="6" height="1.5" rx=".75" fill="#1d1d1f"/>'
    + '<rect x="1.5" y="10" width="2.5" height="5" rx="1" fill="currentColor"/><rect x="20" y="10" width="2.5" height="5" rx="1" fill="currentColor"/>');
}

/** A seat's plate; `change`: its rating's change at the match's end, if it had one. */
function plate(frame, seat, position, clockOffset, timedOut, change) {
  const { table, view } = frame;
  const held = table.seats[seat];
  const team = seat % 2 === myTeam(frame) ? "us" : "them";
  const toMove = frame.turn === seat;
  const chips = [];
  if (view) {
    for (const a of view.announcements.filter((x) => x.seat === seat)) {
      chips.push(h("span.chip.declared", {}, declarationLabel(a)));
    }
    if (view.belots.some((b) => b.seat === seat)) {
      chips.push(h("span.chip.belot", {}, t(`combo.belot.${view.variant}`)));
    }
  }
  const lastCall = view && view.phase === "auction"
    ? [...view.auction].reverse().find((c) => c.seat === seat) : null;
  const away = held.kind === "human" && (!held.connected || held.autoplay);
  return h(`div.plate.${team}.pos-${position}${toMove ? ".to-move" : ""}`,
    { "data-plate": seat },
    h("div.avatar", {}, toMove && frame.deadline ? [ring(frame, clockOffset), h("span.seconds")] : null,
      held.kind === "bot" ? botIcon() : h("span.initial", {}, (held.name || "?").slice(0, 1).toUpperCase())),
    h("div.plate-text", {},
      h("div.plate-name", {}, seatName(table, seat), held.kind === "human" && held.player
        ? playerMenu({ id: held.player, name: held.name }, { mute: muteAtTable, match: table.id }) : null),
      h("div.plate-tags", {},
        held.kind === "bot" ? h("span.bot-badge", { "data-level": held.level }, t(`level.${held.level}`)) : null,
        ratingMark(held.rating, `span.rating.plate-rating${held.kind === "bot" ? ".bot-rating" : ""}`),
        held.kind === "human" && held.player && held.rating ? plateReputation(held.player) : null,
        change ? ratingChange(change.before, change.after) : null,
        away ? h("span.away", {}, held.autoplay ? t("seat.autoplay") : t("seat.away")) : null,
        view && view.dealer === seat ? h("span.dealer-chip", { title: t("table.dealer") }, t("table.dealer_short")) : null,
        view && view.declarer === seat && view.contract ? h("span.taker", {}, contractLabel(view.contract)) : null,
        timedOut ? plateTimeout() : null)),
    lastCall ? h("div.bubble", {}, callLabel(lastCall.bid)) : null,
    chips.length ? h("div.chips", {}, chips) : null);
}

function backs(view, seat, position) {
  const count = view ? view.hand_sizes[seat] : 0;
  return h(`div.backs.pos-${position}`, { "data-hand-seat": seat, "data-count": count },
    Array.from({ length: count }, () => h("div.back", {}, cardBack())),
    count ? h("span.count", {}, count) : null);
}

/** The cards in the middle: the trick being played, or a just finished one held a moment. */
export function trickArea(frame, ui, positions) {
  const view = frame.view;
  const trick = ui.held || (view ? { leader: view.trick.leader, cards: view.trick.cards } : null);
  const children = [];
  if (trick) {
    trick.cards.forEach((card, i) => {
      const seat = (trick.leader + i) % 4;
      const fresh = !ui.held && ui.animate && !ui.seenTrickCards.has(`${view.deal}:${card}`);
      const won = ui.held && ui.held.winner === seat;
      children.push(h(`div.trick-card.at-${positions[seat]}${fresh ? `.enter-${positions[seat]}` : ""}${won ? ".winning" : ""}`,
        { "data-card": card, "data-seat": seat }, cardSvg(card, ui.settings)));
    });
  }
  if (view && view.phase === "auction" && view.turned) {
    children.push(h("div.turned", {}, h("span.muted", {}, t("auction.turned")),
      h("div.turned-card", {}, cardSvg(view.turned, ui.settings))));
  }
  return h("div#trick", {}, children);
}

function hand(frame, ui) {
  const view = frame.view;
  if (!view || frame.seat === null) return h("div#hand.empty");
  const legal = new Set(view.legal_actions.map((a) => a.replace("+belot", "")));
  const cards = sortHand(view.hand, strainOf(view.contract));
  return h("div#hand", { role: "listbox", "aria-label": t("table.your_hand"),
                         style: `--n:${cards.length}` },
    cards.map((card, i) => {
      const playable = view.phase === "play" && legal.has(card);
      return h(`div.hand-card${playable ? ".legal" : ""}${ui.focus === i && ui.keyboard ? ".focused" : ""}${view.phase === "play" && !playable && view.legal_actions.length ? ".dimmed" : ""}`,
        { "data-card": card, role: "option", "aria-disabled": playable ? "false" : "true",
          "aria-label": cardLabel(card), style: `--i:${i}`, onclick: () => ui.onCard(card) },
        cardSvg(card, ui.settings));
    }));
}

function auctionButtons(frame, ui) {
  const view = frame.view;
  if (isCoincheAuction(view.legal_actions)) return coincheAuction(view, ui.onAction);
  const order = ["C", "D", "H", "S", "NT", "AT", "double", "redouble", "pass"];
  const legal = order.filter((a) => view.legal_actions.includes(a));
  return h("div.bids", {}, legal.map((action) => {
    const suit = isSuit(action) ? action : null;
    const label = actionLabel(action, view);
    const symbol = suit && !(view.turned && view.turned[1] === suit);
    const take = suit && !symbol ? ".take.primary" : "";
    return h(`button.btn.bid.bid-${action}${suit && "HD".includes(suit) ? ".red" : ""}${take}`,
      { "data-action": action, onclick: () => ui.onAction(action), type: "button", "aria-label": label },
      symbol ? h("span.suit", {}, suitSymbol(suit)) : null,
      h("span.bid-name", {}, symbol ? label.replace(`${suitSymbol(suit)} `, "") : label));
  }));
}

/** #actions: the legal non-card actions (calls, declarations, the belot choice). */
function actions(frame, ui) {
  const view = frame.view;
  if (!view) return h("div#actions");
  const mine = view.legal_actions.length > 0;
  if (ui.belotChoice) {
    const card = ui.belotChoice;
    return h("div#actions.panel.choice", {},
      h("p", {}, t("play.belot_question")),
      h("div.bids", {},
        h("button.btn.primary", { type: "button", "data-action": `${card}+belot`, onclick: () => ui.onAction(`${card}+belot`) },
          actionLabel(`${card}+belot`, view)),
        h("button.btn", { type: "button", "data-action": card, onclick: () => ui.onAction(card) },
          t("play.without_belot"))));
  }
  if (view.phase === "auction") {
    const who = frame.turn === null ? "" : seatName(frame.table, frame.turn);
    const turn = mine && frame.turn === frame.seat; // else a coinche out of turn (COINCHE.md §4.3)
    return h(`div#actions.panel.auction${mine ? ".mine" : ""}`, {},
      h("div.panel-title", {}, turn ? t("auction.your_call")
        : t(mine ? "coinche.may_coinche" : "auction.waiting", { name: who })),
      mine ? auctionButtons(frame, ui) : null);
  }
  const declarations = view.legal_actions.filter((a) => a.startsWith("announce "));
  if (!declarations.length) return h("div#actions");
  return h("div#actions.panel.declare", {},
    h("div.panel-title", {}, t("play.declare")),
    h("div.bids", {}, declarations.map((action) => h("button.btn.primary", {
      type: "button", "data-action": action, onclick: () => ui.onAction(action) }, actionLabel(action, view)))),
    h("p.muted.small", {}, t("play.declare_hint")));
}

/** #autoplay: a bot plays this seat after missed turns; the player takes it back. */
function autoplayBanner(ui) {
  return h("div#autoplay.panel", { role: "status", "data-testid": "autoplay" },
    h("span.autoplay-text", {}, botIcon(), h("span", {}, t("seat.autoplay_notice"))),
    h("button.btn.primary", { type: "button", "data-testid": "resume", disabled: ui.resumeSent,
                              onclick: ui.onResume }, t("seat.resume")));
}

const LOG_FOLDED = "belote.auctionLogFolded";

/** Fold or unfold the bidding log by its title (kept in the browser: the table redraws it). */
function foldLog(event) {
  const folded = event.currentTarget.closest("#auction-log").classList.toggle("folded");
  event.currentTarget.setAttribute("aria-expanded", String(!folded));
  storeFlag(LOG_FOLDED, folded);
}

/** The calls so far, folded by its title where the felt is short of room. */
function auctionLog(frame) {
  const view = frame.view;
  if (!view || !view.auction.length) return null; // no calls yet: nothing to list
  const folded = storedFlag(LOG_FOLDED, false);
  return h(`div#auction-log${view.phase === "auction" ? ".open" : ""}${folded ? ".folded" : ""}`, {},
    h("button.panel-title.log-toggle", { type: "button", "aria-expanded": String(!folded), onclick: foldLog },
      t("auction.log")),
    h("ol", {}, view.auction.map((call) => h(`li.call.call-${call.bid}`, { "data-call-seat": call.seat },
      h("span.who", {}, seatName(frame.table, call.seat)), h("span.what", {}, callLabel(call.bid))))));
}

/** The contract, with its multiplier in words ("×4 redoubled") and in short ("×4"): a
 *  phone shows the short one, where the words would push the top bar's buttons down. */
export function contractBadge(view) {
  if (!view || !view.contract) return h("div#contract.badge.none", {}, view ? t("table.bidding") : "");
  const mult = multiplierLabel(view.multiplier, view.contract);
  return h(`div#contract.badge.contract-${strainOf(view.contract)}`, { "data-contract": view.contract },
    h("span.label", {}, t("table.contract")),
    h("strong", {}, contractLabel(view.contract)),
    mult ? h("span.mult", {}, h("span.mult-words", {}, mult),
      h("span.mult-short", {}, `×${view.multiplier}`)) : null);
}

export function matchScore(frame) {
  const view = frame.view;
  const totals = view ? view.totals : frame.table.totals || [0, 0];
  const target = view ? view.target : frame.table.options.target_score;
  const team = myTeam(frame);
  const [mine, theirs] = teamLabels(frame);
  return h(`div#match-score.badge${watching(frame) ? ".watching" : ""}`, {},
    watching(frame) ? h("div.watching-tag", {}, t("table.watching")) : null,
    h("div.score-line", {}, h("span.label", {}, mine), h("strong.us", {}, totals[team])),
    h("div.score-line", {}, h("span.label", {}, theirs), h("strong.them", {}, totals[1 - team])),
    h("div.target.muted", {}, t("score.target", { target })),
    // The rules that differ from the variant's, if any (the target is the line above).
    houseRulesLine(frame.table.variant, frame.table.options, { omit: ["target_score"] }),
    view && view.pool ? h("div.pool.muted", {}, t("score.hanging_pool", { points: view.pool })) : null);
}

/** The felt: plates and backs in their places, trick, hand, panels. */
export function board(frame, ui) {
  const positions = seatPositions(frame.seat, frame.table.options.table_direction);
  const seats = [0, 1, 2, 3];
  const panel = ui.autoplay ? autoplayBanner(ui) : actions(frame, ui);
  return [
    h("div.topbar", {},
      matchScore(frame),
      h("div.table-title", {}, h("strong", {}, frame.table.name),
        h("span.muted", {}, ` · ${t(`variant.${frame.table.variant}`)}`),
        frame.table.rated ? h("span.muted.rated-title", { title: t("rated.hint") }, ` · ${t("rated.label")}`) : null,
        frame.view ? h("span.muted", {}, ` · ${t("table.deal_n", { n: frame.view.deal + 1 })}`) : null),
      h("div.topbar-right", {}, contractBadge(frame.view),
        h("button.btn.ghost", { type: "button", "data-testid": "last-trick", onclick: ui.onLastTrick,
                                disabled: !lastTrick(frame.view) }, t("table.last_trick")),
        h("button.btn.ghost", { type: "button", "data-testid": "open-scores", onclick: ui.onScores },
          t("table.scores")),
        h("button.btn.ghost", { type: "button", "data-testid": "open-rules", onclick: ui.onRules },
          t("help.rules")),
        ui.chatButton)),
    seats.map((s) => plate(frame, s, positions[s], ui.clockOffset, ui.timedOut.has(s),
      (frame.table.rating_changes || []).find((change) => change.seat === s))),
    seats.filter((s) => s !== frame.seat).map((s) => backs(frame.view, s, positions[s])),
    trickArea(frame, ui, positions),
    ui.center,
    auctionLog(frame),
    panel,
    turnNotes(panel, frame, ui),
    hand(frame, ui),
  ];
}
