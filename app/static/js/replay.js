// The replay viewer (#/replay/<id>) and the helpers the history pages share. The server
// works out every frame (GET /api/matches/{id}/replay); this module only steps through them.

import { analysisPanel, evaluationBox, frameOf } from "./analysis.js";
import { h, fill, storedFlag } from "./dom.js";
import {
  callMark, cardLabel, comboName, contractLabel, contractMark, outcomeMark, pastPlayerName,
  pastSeat, seatPositions, seatWhere, teamLabeller,
} from "./labels.js";
import { strainOf } from "./coinche-labels.js";

const fourColour = () => storedFlag("belote.fourColour", false);

// ---------------------------------------------------------------- shared by the history pages

/** The stored guest, whether ctx.guest is api.js's guest() or the guest itself. */
export function currentGuest(ctx) {
  return typeof ctx.guest === "function" ? ctx.guest() : ctx.guest;
}

/** A date, and its time unless `withTime` is false, in the page's language. */
export function dateText(iso, withTime = true) {
  const lang = document.documentElement.lang || "en";
  return new Intl.DateTimeFormat(lang, { dateStyle: "medium", timeStyle: withTime ? "short" : undefined })
    .format(new Date(iso));
}

/** A failed request as a short message: not found, unavailable, or the reason given. */
export function errorBox(t, error) {
  const key = error && error.status === 404 ? "history.error.not_found"
    : error && error.status === 503 ? "history.error.unavailable" : "history.error.other";
  return h("p.history-error", { role: "alert" }, t(key));
}

/** A list read a page at a time, with its "More" button: `load(cursor)` fetches a page,
 *  shows it and answers the next page's cursor (null after the last); `gone()` says the
 *  page was left (nothing is drawn then). The first page loads at once. */
export function pagedList(t, more, gone, load) {
  let cursor = null;
  const next = async () => {
    more.disabled = true;
    try {
      cursor = await load(cursor);
      if (!gone()) more.hidden = !cursor;
    } catch (error) {
      if (!gone()) more.before(errorBox(t, error));
    } finally {
      more.disabled = false;
    }
  };
  more.addEventListener("click", next);
  next();
}

/** `#/x/<id>?deal=3&step=2` hands the id, an optional 1-based deal number and the step
 *  (tricks shown) within it. */
export function splitRouteId(raw) {
  const [id, query = ""] = String(raw).split("?");
  const params = new URLSearchParams(query);
  const deal = Number(params.get("deal"));
  const step = Number(params.get("step"));
  return { id, deal: Number.isInteger(deal) && deal > 0 ? deal - 1 : 0,
           step: Number.isInteger(step) && step > 0 ? step : 0 };
}

/** The replay route that shows a decision of the match's analysis; `deals`: the replay's. */
export function decisionRoute(id, deals, decision) {
  const step = frameOf(deals[decision.deal], decision);
  return `#/replay/${encodeURIComponent(id)}?deal=${decision.deal + 1}&step=${step}`;
}

// ---------------------------------------------------------------- frames

/** The table after `step` tricks of `deal`: the cards still held and the trick on show. */
export function frameAt(deal, step) {
  const played = new Set(deal.tricks.slice(0, step).flatMap((trick) => trick.cards));
  const hands = deal.hands.map((hand) => hand.filter((card) => !played.has(card)));
  const trick = step > 0 ? deal.tricks[step - 1] : null;
  const won = [0, 0, 0, 0];
  for (const past of deal.tricks.slice(0, step)) won[past.winner] += 1;
  return { hands, trick, won, last: step === deal.tricks.length };
}

// ---------------------------------------------------------------- the viewer

/** A face-up card; `data-card` marks the cards in hands and in the trick, nothing else. */
function cardEl(ctx, card, extra = { "data-card": card }) {
  return h("span.rcard", extra, ctx.cards.cardSvg(card, { fourColour: fourColour() }));
}

// Where the last replay stood: a re-render of the same route (a language or settings
// change rebuilds the page) goes on from there instead of deal 1.
let kept = { route: null, deal: 0, step: 0 };

export function renderReplay(root, ctx, rawId) {
  const { t } = ctx;
  const { id, deal: routeDeal, step: routeStep } = splitRouteId(rawId);
  const resumed = kept.route === rawId;
  const firstDeal = resumed ? kept.deal : routeDeal;
  const view = h("section#replay.history-page.replay-page", { "aria-busy": "true" },
                 h("p.history-loading", {}, t("history.loading")));
  fill(root, view);
  const state = { data: null, deal: firstDeal, step: resumed ? kept.step : routeStep };
  let gone = false;
  let analysis = null; // the analysis panel, once the replay is loaded

  const go = (deal, step) => {
    const deals = state.data.deals;
    if (step < 0 && deal > 0) { deal -= 1; step = deals[deal].tricks.length; }
    if (step > deals[deal].tricks.length && deal < deals.length - 1) { deal += 1; step = 0; }
    state.deal = deal;
    state.step = Math.max(0, Math.min(step, deals[deal].tricks.length));
    kept = { route: rawId, deal: state.deal, step: state.step };
    draw();
  };
  const onKey = (event) => {
    if (!state.data || !state.data.deals.length || event.altKey || event.ctrlKey) return;
    if (["INPUT", "SELECT", "TEXTAREA"].includes(event.target.tagName)) return;
    if (event.key === "ArrowRight") go(state.deal, state.step + 1);
    else if (event.key === "ArrowLeft") go(state.deal, state.step - 1);
    else return;
    event.preventDefault();
  };

  // The bar is built once, so focus and the live position survive each step.
  const back = h("a.history-back", { href: `#/match/${encodeURIComponent(id)}` }, t("replay.back"));
  const select = h("select.replay-deal", {
    "data-testid": "replay-deal", "aria-label": t("replay.pick_deal"),
    onchange: (event) => go(Number(event.target.value), 0),
  });
  const stepButton = (testid, label, text, delta) => h("button.replay-step", {
    type: "button", "data-testid": testid, "aria-label": label, title: label,
    onclick: () => go(state.deal, state.step + delta),
  }, text);
  const prev = stepButton("replay-prev", t("replay.prev"), "‹", -1);
  const next = stepButton("replay-next", t("replay.next"), "›", 1);
  const position = h("span.replay-position", { "data-testid": "replay-position", "aria-live": "polite" });
  const body = h("div.replay-body");

  function draw() {
    const data = state.data;
    const deal = data.deals[state.deal];
    const frame = frameAt(deal, state.step);
    select.value = String(state.deal);
    prev.disabled = state.deal === 0 && state.step === 0;
    next.disabled = state.deal === data.deals.length - 1 && frame.last;
    position.textContent = positionText(t, deal, state.step);
    const review = analysis && analysis.review;
    fill(body, table(ctx, data, deal, frame), side(ctx, data, deal, frame,
      review ? evaluationBox(ctx, review, deal, state.step, (seat) => seatName(ctx, data, seat)) : null));
  }

  function start(data) {
    if (!data.deals.length) {
      fill(view, back, h("h1", {}, t("replay.title")), h("p.history-empty", {}, t("replay.empty")));
      return;
    }
    fill(select, dealOptions(ctx, data));
    if (data.finished) {  // a match still on has no analysis yet: the match page says so
      analysis = analysisPanel(ctx, id, {
        summary: false,  // the match page has it; here each decision is judged by the table
        nameOf: (seat) => seatName(ctx, data, seat),
        jumpTo: (decision) => decisionRoute(id, data.deals, decision),
        onDone: () => { if (!gone) draw(); },
      });
    }
    fill(view,
      h("div.replay-bar", {}, back, h("h1", {}, t("replay.title")), select,
        h("div.replay-steps", {}, prev, position, next)),
      body, analysis && analysis.element);
    draw();
  }

  const path = `/api/matches/${encodeURIComponent(id)}`;
  Promise.all([ctx.api("GET", path), ctx.api("GET", `${path}/replay`)]).then(([match, data]) => {
    if (gone) return;
    // The match's seats carry the players' ids; its end, whether it may be analysed.
    state.data = { ...data, seats: match.seats, finished: Boolean(match.finished_at) };
    state.deal = Math.min(state.deal, Math.max(0, data.deals.length - 1));
    if (data.deals.length) state.step = Math.min(state.step, data.deals[state.deal].tricks.length);
    view.removeAttribute("aria-busy");
    start(state.data);
  }, (error) => {
    if (gone) return;
    view.removeAttribute("aria-busy");
    fill(view, h("a.history-back", { href: "#/history" }, t("history.back")), errorBox(t, error));
  });
  document.addEventListener("keydown", onKey);
  return () => {
    gone = true;
    if (analysis) analysis.close();
    document.removeEventListener("keydown", onKey);
  };
}

function positionText(t, deal, step) {
  const number = deal.index + 1;
  if (!deal.tricks.length) return t("replay.position.redeal", { deal: number });
  if (step === 0) return t("replay.position.start", { deal: number });
  return t("replay.position.trick", { deal: number, trick: step, tricks: deal.tricks.length });
}

function dealOptions(ctx, data) {
  return data.deals.map((deal) => {
    const { contract } = deal.result;
    const name = contract ? contractLabel(contract) : ctx.t("history.outcome.redeal");
    return h("option", { value: deal.index }, ctx.t("replay.deal_option", { deal: deal.index + 1, contract: name }));
  });
}

/** Where each seat is drawn: the viewer's own at the bottom, as at the table; seat 0
 *  for an onlooker. */
function replayPositions(ctx, data) {
  return seatPositions(pastSeat(data.seats, currentGuest(ctx)), data.table_direction);
}

/** A seat's name in the replay's texts, a bot told apart by where it sat. */
function seatName(ctx, data, seat) {
  return pastPlayerName(data.seats, seat, currentGuest(ctx), data.table_direction);
}

function table(ctx, data, deal, frame) {
  const { t } = ctx;
  const result = deal.result;
  const positions = replayPositions(ctx, data);
  const seats = [0, 1, 2, 3].map((seat) => {
    const info = data.seats[seat];
    const badges = [];
    if (info && info.kind === "bot") badges.push(h("span.bot-badge", { "data-level": info.level }, t(`level.${info.level}`)));
    if (seat === deal.dealer) {
      badges.push(h("span.dealer-chip", { title: t("replay.dealer") }, t("replay.dealer_chip")));
    }
    if (seat === result.bidder) badges.push(h("span.bidder-badge", {}, contractMark(result.contract, result.multiplier)));
    const hand = ctx.cards.sortHand(frame.hands[seat], strainOf(result.contract) || "");
    return h(`div.replay-seat.pos-${positions[seat]}.team-${seat % 2}`, {
      "data-replay-seat": seat,
    },
    h("div.replay-plate", {},
      h("span.plate-name", {}, info ? (info.kind === "bot" ? t("history.bot_name") : info.name) : "?"),
      badges,
      info && info.kind === "bot"
        ? h("span.plate-where", {}, seatWhere(data.seats, seat, currentGuest(ctx), data.table_direction))
        : null,
      frame.won[seat] ? h("span.tricks-won", { title: t("replay.tricks_won") }, `✓ ${frame.won[seat]}`) : null),
    h("div.replay-hand", { "data-count": hand.length }, hand.map((card) => cardEl(ctx, card))));
  });
  return h("div.replay-table", {}, seats, trickArea(ctx, data, deal, frame));
}

function trickArea(ctx, data, deal, frame) {
  const { t } = ctx;
  const area = h("div#replay-trick.replay-trick", { "aria-label": t("replay.trick") });
  if (frame.trick) {
    const { leader, cards, winner } = frame.trick;
    const positions = replayPositions(ctx, data);
    cards.forEach((card, i) => {
      const seat = (leader + i) % 4;
      area.append(cardEl(ctx, card, {
        "data-card": card, "data-seat": seat,
        class: `rcard trick-card pos-${positions[seat]}${seat === winner ? " winner" : ""}`,
        style: `z-index:${seat === winner ? 5 : i + 1}`, // the card that took it lies on top
      }));
    });
    area.append(h("p.trick-caption", {}, t("replay.trick_won", {
      name: seatName(ctx, data, winner), points: frame.trick.points,
    })));
  } else if (deal.turned) {
    area.append(h("div.replay-turned", {}, cardEl(ctx, deal.turned, { "data-turned": deal.turned }),
                  h("p.trick-caption", {}, t("replay.turned"))));
  } else {
    area.append(h("p.trick-caption", {}, deal.tricks.length ? t("replay.before_play") : t("replay.all_passed")));
  }
  return area;
}

function side(ctx, data, deal, frame, evaluation) {
  const { t } = ctx;
  const result = deal.result;
  const name = (seat) => seatName(ctx, data, seat);
  const before = deal.index > 0 ? data.deals[deal.index - 1].totals : [0, 0];
  const parts = [
    h("section.replay-box.replay-contract", {},
      h("h2", {}, t("replay.contract")),
      result.contract
        ? h("p", {}, contractMark(result.contract, result.multiplier), " · ",
            t("replay.by", { name: name(result.bidder) }))
        : h("p", {}, t("replay.all_passed")),
      h("p.replay-dealer", {}, t("replay.dealt_by", { name: name(deal.dealer) })),
      h("p.replay-score", {}, t("replay.score_before", { team0: before[0], team1: before[1] }))),
    evaluation,
    auctionBox(ctx, data, deal),
  ];
  if (deal.announcements.length || deal.belots.length) {
    parts.push(h("section.replay-box.replay-announcements", {},
      h("h2", {}, t("replay.announcements")),
      h("ul", {},
        deal.announcements.map((a) => h(`li.${a.scored ? "scored" : "not-scored"}`, {},
          h("span.who", {}, name(a.seat)),
          h("span.what", {}, comboName(a.kind)),
          h("span.combo-cards", {}, a.cards.map((card) => miniCard(ctx, card))),
          h("span.value", {}, a.scored ? `+${a.value}` : t("replay.not_scored")))),
        deal.belots.map((b) => h("li.scored", {},
          h("span.who", {}, name(b.seat)),
          h("span.what", {}, t(`combo.belot.${data.variant}`)),
          h("span.combo-cards", {}, miniCard(ctx, b.card)),
          h("span.value", {}, "+20"))))));
  }
  if (frame.last) parts.push(resultBox(ctx, data, deal));
  return h("aside.replay-side", {}, parts);
}

function miniCard(ctx, card) {
  const style = `color:${ctx.cards.suitColour(card[1], fourColour())}`;
  return h("span.mini-card", { style }, cardLabel(card));
}

function auctionBox(ctx, data, deal) {
  const { t } = ctx;
  const first = (deal.dealer + 1) % 4;
  const order = [0, 1, 2, 3].map((i) => (first + i) % 4);
  const grid = h("div.auction-grid", { role: "table", "aria-label": t("replay.auction") },
    order.map((seat) => h("span.auction-head", { role: "columnheader" }, seatName(ctx, data, seat))),
    deal.auction.map((call) => h("span.auction-call", { "data-call-seat": call.seat, role: "cell" },
                                 callMark(call.call))));
  return h("section.replay-box.replay-auction", {}, h("h2", {}, t("replay.auction")), grid);
}

function resultBox(ctx, data, deal) {
  const { t } = ctx;
  const r = deal.result;
  const label = teamLabeller(data.seats, currentGuest(ctx));
  const teams = [label(0), label(1)];
  const targetBefore = deal.index ? data.deals[deal.index - 1].target : data.target_score;
  const row = (label, values) => h("tr", {}, h("th", { scope: "row" }, label),
                                   values.map((v) => h("td", {}, v)));
  const body = [];
  if (r.outcome !== "redeal") {
    body.push(row(t("replay.card_points"), r.card_points));
    if (r.declarations.some(Boolean)) body.push(row(t("replay.declarations"), r.declarations));
    if (r.belot.some(Boolean)) body.push(row(t("replay.belots"), r.belot));
  }
  body.push(row(t("replay.deal_score"), r.score), row(t("replay.match_score"), deal.totals));
  return h("section.replay-box.replay-result", {},
    h("h2", {}, t("replay.result"), " ", outcomeMark(r.outcome)),
    r.valat !== null ? h("p.replay-valat", {}, t("replay.valat", { names: label(r.valat) }),
      deal.target > targetBefore ? ` ${t("replay.target_raised", { target: deal.target })}` : "") : null,
    r.hanging ? h("p", {}, t("replay.hanging", { points: r.hanging })) : null,
    h("table.result-table", {},
      h("thead", {}, h("tr", {}, h("td"), teams.map((name) => h("th", { scope: "col" }, name)))),
      h("tbody", {}, body)));
}
