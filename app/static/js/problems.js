// Problems from one's own mistakes (issue #35): #/problems lists the player's own
// (GET /api/me/problems) and the public set drawn from bots' mistakes (GET /api/problems);
// #/problems/<id> shows one position as its seat saw it (hand, trick, contract, auction),
// lets the player pick a card or call, and then shows the analysis's answer and its reason
// (POST /api/problems/{id}/attempts).

import { api, guest } from "./api.js";
import { cardSvg, sortHand } from "./cards.js";
import { h, fill, storedFlag } from "./dom.js";
import { t } from "./i18n.js";
import { callMark, contractMark, seatPositions } from "./labels.js";
import { dateText } from "./replay.js";

const PAGE = 20;

/** "you", "your partner", "on your left": where a seat sat, seen from the problem's seat. */
function where(view, seat) {
  const position = seatPositions(view.seat, view.table_direction)[seat];
  return t(`history.where.${position === "top" ? "partner" : position === "bottom" ? "you" : position}`);
}

function card(name, attrs = {}) {
  return h("span.problem-card", attrs, cardSvg(name, { fourColour: storedFlag("belote.fourColour", false) }));
}

function problemTitle(problem) {
  return t(problem.kind === "bid" ? "problems.find_call" : "problems.find_card");
}

// ------------------------------------------------------------------ the lists

function problemRow(problem) {
  const mark = problem.solved ? "✓" : problem.attempts ? "✗" : "";
  return h("li.problem-row", {},
    h("a", { href: `#/problems/${encodeURIComponent(problem.id)}`, "data-testid": "problem-row" },
      h("strong", {}, problemTitle(problem)),
      h("span.muted", {}, `${t(`variant.${problem.variant}`)} · ${t("problems.deal", { n: problem.deal + 1 })} · `
        + dateText(problem.played_at, false)),
      mark ? h("span.problem-mark", { title: t("problems.attempts", { n: problem.attempts }) }, mark) : null));
}

/** A list with a "more" button that fetches the next page. */
function problemList(path, emptyText, testid) {
  const list = h("ul.problem-list", { "data-testid": testid }, h("li.empty", {}, "…"));
  const more = h("button.btn.ghost", { type: "button", hidden: true }, t("problems.more"));
  let offset = 0;
  const load = () => api("GET", `${path}?limit=${PAGE}&offset=${offset}`).then((page) => {
    if (offset === 0) fill(list, page.problems.length ? [] : h("li.empty", {}, emptyText));
    list.append(...page.problems.map(problemRow));
    more.hidden = page.next_offset === null;
    offset = page.next_offset ?? offset;
  }, () => fill(list, h("li.empty", {}, t("lobby.unreachable"))));
  more.addEventListener("click", load);
  load();
  return [list, more];
}

function renderLists(root) {
  const mine = guest()
    ? h("section.card", {}, h("h2", {}, t("problems.yours")), ...problemList("/api/me/problems", t("problems.none_yours"), "problems-mine"))
    : null;
  fill(root, h("section.problems", {},
    h("h1", {}, t("problems.title")), h("p.muted", {}, t("problems.intro")),
    h("div.problems-grid", {}, mine,
      h("section.card", {}, h("h2", {}, t("problems.public")), ...problemList("/api/problems", t("problems.none"), "problems-public")))));
}

// ------------------------------------------------------------------ one problem

function auction(view) {
  if (!view.auction.length) return null;
  return h("div.problem-auction", { "data-testid": "problem-auction" },
    h("span.problem-label", {}, t("problems.auction")),
    h("ol.problem-calls", {}, view.auction.map((call) => h("li", {},
      h("span.muted", {}, where(view, call.seat)), callMark(call.bid)))));
}

function trick(view) {
  if (view.phase !== "play") return null;
  const played = view.trick.cards;
  return h("div.problem-trick", { "data-testid": "problem-trick" },
    h("span.problem-label", {}, t("problems.trick", { n: view.tricks.length + 1 })),
    played.length
      ? h("div.problem-cards", {}, played.map((name, i) => h("figure.problem-played", {},
        card(name), h("figcaption", {}, where(view, (view.trick.leader + i) % 4)))))
      : h("p.muted", {}, t("problems.you_lead")));
}

function position(problem, pick) {
  const view = problem.position;
  const options = new Set(problem.options);
  const hand = sortHand(view.hand, view.contract);
  const cards = h("div.problem-cards.problem-hand", { "data-testid": "problem-hand" }, hand.map((name) => {
    const playable = problem.kind === "card" && options.has(name);
    return playable
      ? h("button.problem-pick", { type: "button", "data-card": name, "aria-label": name, onclick: () => pick(name) }, card(name))
      : card(name, { class: problem.kind === "card" ? "problem-card unplayable" : "problem-card" });
  }));
  const calls = problem.kind === "bid"
    ? h("div.problem-call-options", { "data-testid": "problem-calls" }, problem.options.map((call) =>
      h("button.btn.problem-call", { type: "button", "data-call": call, onclick: () => pick(call) }, callMark(call))))
    : null;
  const [us, them] = view.seat % 2 === 0 ? view.totals : [view.totals[1], view.totals[0]];
  return h("div.problem-position", {},
    h("p.problem-facts", {},
      view.contract ? h("span", {}, t("problems.contract"), " ", contractMark(view.contract, view.multiplier),
        " · ", where(view, view.declarer)) : null,
      h("span", {}, t("problems.score", { us, them, target: view.target }))),
    auction(view), trick(view),
    h("span.problem-label", {}, t("problems.hand")), cards, calls);
}

function choiceLabel(problem, action) {
  return problem.kind === "bid" ? callMark(action) : card(action, { class: "problem-card small" });
}

/** The values' unit as the analysis names it (none: card points of the score lead). */
function unitText(unit) {
  return unit === "match_points" ? t("problems.unit.match_points") : unit || t("problems.points");
}

function answerPanel(problem, answer) {
  const rows = answer.choices.map((c) => h(`tr${c.action === answer.best ? ".best" : ""}${c.action === answer.action ? ".chosen" : ""}`, {},
    h("td", {}, choiceLabel(problem, c.action)),
    h("td", {}, c.action === answer.best ? t("problems.best") : c.action === answer.played ? t("problems.played") : ""),
    h("td.num", {}, c.value.toFixed(0)), h("td.num", {}, c.loss ? `−${c.loss.toFixed(0)}` : "0")));
  return h("section.problem-answer", { "data-testid": "problem-answer", "data-right": String(answer.right), "aria-live": "polite" },
    h("h2", {}, answer.right ? t("problems.right") : t("problems.wrong")),
    h("p", {}, t("problems.best_was"), " ", choiceLabel(problem, answer.best), " · ",
      t("problems.played_was"), " ", choiceLabel(problem, answer.played)),
    h("p.muted", {}, t("problems.reason", { unit: unitText(answer.unit) })),
    h("table.problem-reasons", {}, h("thead", {}, h("tr", {}, h("th", {}, t("problems.choice")), h("th", {}, ""),
      h("th.num", {}, t("problems.value")), h("th.num", {}, t("problems.loss")))), h("tbody", {}, rows)),
    h("p", {}, h("a", { href: `#/replay/${encodeURIComponent(answer.match_id)}` }, t("problems.replay")), " · ",
      h("a", { href: "#/problems" }, t("problems.back"))));
}

function renderProblem(root, ctx, id) {
  const body = h("div.card.problem", { "data-testid": "problem" }, "…");
  fill(root, h("section.problems", {}, h("p", {}, h("a", { href: "#/problems" }, t("problems.back"))), body));
  api("GET", `/api/problems/${encodeURIComponent(id)}`).then((problem) => {
    const result = h("div.problem-result");
    const pick = async (action) => {
      if (!guest()) { fill(result, h("p.history-error", { role: "alert" }, t("problems.name_first"))); return; }
      try {
        fill(result, answerPanel(problem, await api("POST", `/api/problems/${encodeURIComponent(id)}/attempts`, { action })));
        result.scrollIntoView({ block: "nearest" });
      } catch (exc) { ctx.toast(exc); }
    };
    fill(body, h("h1", {}, problemTitle(problem)),
      h("p.muted", {}, `${t(`variant.${problem.variant}`)} · ${t("problems.deal", { n: problem.deal + 1 })}`),
      position(problem, pick), result);
  }, (exc) => { fill(body, h("p.history-error", { role: "alert" }, t("problems.not_found"))); ctx.toast(exc); });
}

export function renderProblems(root, ctx, id) {
  if (id) renderProblem(root, ctx, decodeURIComponent(id));
  else renderLists(root);
  return null;
}
