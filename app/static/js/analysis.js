// Match analysis (#17): the "Analyse" button, its progress, and the review it gives
// (POST/GET /api/matches/{id}/analysis): a per-player summary and the key moments on the
// match page, and beside each decision in the replay viewer its evaluation (the choice,
// the best choice, the loss and its grade, colour-coded).

import { h, fill } from "./dom.js";
import { callMark, cardLabel } from "./labels.js";

const POLL_MS = 1000; // how often a running analysis is asked for its progress
const ASKED_KEY = "belote.analysesAsked"; // the matches this browser asked to analyse
const ASKED_KEPT = 200;

/** Whether this browser asked for the match's analysis: only then is it read at once, so
 *  that a match page never fetches one nobody asked for (a 404 in the console). */
function asked(matchId) {
  try {
    return (JSON.parse(localStorage.getItem(ASKED_KEY)) || []).includes(matchId);
  } catch {
    return false;
  }
}

function remember(matchId) {
  let ids = [];
  try {
    ids = JSON.parse(localStorage.getItem(ASKED_KEY)) || [];
  } catch { /* a damaged list starts again */ }
  localStorage.setItem(ASKED_KEY, JSON.stringify([...ids.filter((id) => id !== matchId), matchId].slice(-ASKED_KEPT)));
}
const KEY_MOMENTS = 8; // the costliest decisions of the match listed to jump to
export const GRADES = ["good", "inaccuracy", "mistake", "blunder"];
/** The grades as chess annotates moves, for a phone's summary, where their names would
 *  push the columns out of sight. */
const GRADE_MARKS = { good: "✓", inaccuracy: "?!", mistake: "?", blunder: "??" };

/** A match's analysis: `element` is its panel (button, progress, or the summary when
 *  `summary`), `review` the result once done; `onDone(review)` is told once it is.
 *  `close()` stops the polling (the page was left). */
export function analysisPanel(ctx, matchId, { nameOf, jumpTo, summary = true, onDone = () => {} }) {
  const { t } = ctx;
  const path = `/api/matches/${encodeURIComponent(matchId)}/analysis`;
  const element = h("section.analysis-panel", { "data-testid": "analysis", "aria-live": "polite" });
  const panel = { element, review: null, close };
  let timer = null;
  let closed = false;

  function show(status) {
    if (closed) return;
    element.dataset.status = status ? status.status : "none";
    if (!status) {
      fill(element, h("h2", {}, t("analysis.title")), h("p.analysis-intro", {}, t("analysis.intro")),
        startButton());
    } else if (status.status === "done") {
      panel.review = status.result;
      fill(element, summary ? reviewSummary(ctx, status.result, { nameOf, jumpTo })
        : h("p.analysis-ready", {}, t("analysis.ready")),
      summary ? h("p.analysis-problems", {}, h("a", { href: "#/problems", "data-testid": "analysis-problems" },
        t("problems.from_analysis"))) : null);
      onDone(status.result);
    } else if (status.status === "failed") {
      fill(element, h("h2", {}, t("analysis.title")), h("p.history-error", { role: "alert" }, t("analysis.failed")));
    } else {
      const percent = Math.round(100 * status.progress);
      fill(element, h("h2", {}, t("analysis.title")),
        h("p.analysis-running", {}, t(status.status === "queued" ? "analysis.queued" : "analysis.running")),
        h("progress.analysis-progress", {
          max: 100, value: percent, "data-testid": "analysis-progress", "aria-label": t("analysis.progress", { percent }),
        }), h("span.analysis-percent", {}, `${percent}%`));
      if (timer !== null) clearTimeout(timer);
      timer = setTimeout(poll, POLL_MS);
    }
  }

  function failed(error) {
    if (closed) return;
    if (error && error.status === 404 && error.code === "no_analysis") { show(null); return; }
    const over = !(error && error.code === "match_not_over");
    fill(element, h("h2", {}, t("analysis.title")),
      h("p.history-error", { role: "alert" }, over ? why(error) : t("analysis.not_over")),
      over ? startButton() : null);  // a blip or a busy server: the player may ask again
  }

  function why(error) {
    const code = error && error.code;
    if (code === "too_many_analyses") return t("analysis.busy");
    if (code === "too_many_analyses_for_you") return t("analysis.too_many", { minutes: error.retryMinutes });
    if (code === "analysis_slots_full_for_you") return t("analysis.slots_full");
    return t("analysis.error");
  }

  function startButton() {
    return h("button.history-button.analysis-start", { type: "button", "data-testid": "analyse", onclick: ask },
      t("analysis.analyse"));
  }

  function poll() {
    timer = null;
    Promise.resolve(ctx.api("GET", path)).then(show, failed);
  }

  function ask(event) {
    event.currentTarget.disabled = true;  // one request, one poller: the answer redraws the panel
    remember(matchId);
    // Asking answers the job's status; a job done (asked before, by anyone) is then read.
    Promise.resolve(ctx.api("POST", path)).then((status) => (status.status === "done" ? poll() : show(status)), failed);
  }

  function close() {
    closed = true;
    if (timer !== null) clearTimeout(timer);
  }

  if (asked(matchId)) poll();
  else show(null);
  return panel;
}

/** The review's figures per player and its key moments, each a link to its place. */
function reviewSummary(ctx, review, { nameOf, jumpTo }) {
  const { t } = ctx;
  const head = h("tr", {}, h("th", { scope: "col" }, t("analysis.player")),
    h("th", { scope: "col" }, t("analysis.decisions")), h("th", { scope: "col" }, t("analysis.mean_loss")),
    GRADES.map((grade) => {
      const name = t(`analysis.grade.${grade}`);
      return h(`th.grade-${grade}`, { scope: "col", "aria-label": name, title: name },
        h("span.grade-name", {}, name), h("span.grade-mark", { "aria-hidden": "true" }, GRADE_MARKS[grade]));
    }));
  const rows = review.seats.map((s) => h(`tr.team-${s.seat % 2}`, { "data-analysis-seat": s.seat },
    h("th", { scope: "row" }, nameOf(s.seat)), h("td.num", {}, s.decisions),
    h("td.num", {}, points(s.mean_loss)),
    GRADES.map((grade) => h(`td.num.grade-${grade}`, {}, s.counts[grade] || 0))));
  const moments = [...review.decisions].filter((d) => d.grade !== "good")
    .sort((a, b) => b.loss - a.loss).slice(0, KEY_MOMENTS)
    .sort((a, b) => a.deal - b.deal || a.step - b.step);
  return [
    h("h2", {}, t("analysis.title")),
    h("div.table-scroll", {}, h("table.analysis-summary", { "data-testid": "analysis-summary" },
      h("thead", {}, head), h("tbody", {}, rows))),
    h("h3", {}, t("analysis.key_moments")),
    moments.length
      ? h("ol.analysis-moments", { "data-testid": "analysis-moments" }, moments.map((d) => h("li", {},
        h("a.analysis-moment", {
          href: jumpTo(d), "data-deal": d.deal, "data-step": d.step,
        }, t("analysis.moment", { deal: d.deal + 1, name: nameOf(d.seat) }), " ",
        decisionLine(ctx, d)))))
      : h("p.history-empty", {}, t("analysis.no_moments")),
    thresholdsTable(ctx, review),
  ];
}

/** How the review grades (a result before match points had no unit: its note alone):
 *  the thresholds per kind of decision, in the score sheet's points, and the margin. */
function thresholdsTable(ctx, review) {
  const { t } = ctx;
  const note = h("p.analysis-note", {}, t("analysis.note", { samples: review.samples }));
  if (review.unit !== "match_points") return note;
  const grades = GRADES.slice(1);
  const rows = [["play", review.thresholds.card], ["bid", review.thresholds.bid]].map(([kind, limits]) =>
    h("tr", {}, h("th", { scope: "row" }, t(`analysis.kind.${kind}`)),
      grades.map((grade) => h(`td.num.grade-${grade}`, {}, t("analysis.from", { points: points(limits[grade]) })))));
  return h("section.analysis-thresholds", { "data-testid": "analysis-thresholds" },
    h("h3", {}, t("analysis.thresholds")),
    h("p.analysis-note", {}, t("analysis.thresholds_intro")),
    h("div.table-scroll", {}, h("table.analysis-summary", {},
      h("thead", {}, h("tr", {}, h("th", { scope: "col" }, t("analysis.kind")),
        // Each grade's name with its mark: a phone's summary above shows the marks alone.
        grades.map((grade) => h(`th.grade-${grade}`, { scope: "col" }, t(`analysis.grade.${grade}`),
          h("span.legend-mark", { "aria-hidden": "true" }, ` ${GRADE_MARKS[grade]}`))))),
      h("tbody", {}, rows))),
    h("p.analysis-note", {}, t("analysis.margin_note")),
    note);
}

/** Match points, as the score sheet counts them and the review its losses. */
function points(value) {
  return Math.round(value * 10) / 10;
}

/** An action as the review writes it ("TH", "pass", "announce QS KS AS", "TH+belot"). */
export function actionMark(ctx, kind, text) {
  if (!text) return "—";
  if (kind === "bid") return callMark(text);
  const [main, extra] = text.split("+");
  if (main === "no announcement") return ctx.t("analysis.no_announcement");
  if (main.startsWith("announce ")) return main.slice(9).split(" ").map(cardLabel).join(" ");
  if (/^[789TJQKA][CDHS]$/.test(main)) return cardLabel(main) + (extra ? ` + ${ctx.t("analysis.belot")}` : "");
  return main;
}

/** One decision: the choice, the best one and the loss, coloured by its grade. */
export function decisionLine(ctx, d) {
  const { t } = ctx;
  return h(`span.analysis-decision.grade-${d.grade}`, { "data-grade": d.grade },
    h("span.analysis-played", {}, actionMark(ctx, d.kind, d.played)),
    d.played === d.best ? null
      : h("span.analysis-best", {}, t("analysis.best"), " ", actionMark(ctx, d.kind, d.best)),
    d.loss > 0 ? h("span.analysis-loss", { title: d.margin != null ? t("analysis.margin_title") : null },
      d.margin != null ? t("analysis.loss_margin", { points: points(d.loss), margin: points(d.margin) })
        : t("analysis.loss", { points: points(d.loss) })) : null,
    h("span.analysis-grade", {}, t(`analysis.grade.${d.grade}`)),
    d.hindsight_loss ? h("span.analysis-hindsight", { title: t("analysis.hindsight_title") },
      t("analysis.hindsight", { best: actionMark(ctx, d.kind, d.hindsight_best),
                                points: points(d.hindsight_loss) })) : null);
}

/** Which frame of the replay's `deal` shows a decision: the auction (step 0) for a bid,
 *  else the trick of its card.  A decision's step indexes the record's actions, the bids
 *  then the cards (announcements and belots ride on their card), so the k-th card of the
 *  deal is action auction.length + k, in trick k/4 + 1. */
export function frameOf(deal, d) {
  if (d.kind === "bid") return 0;
  return Math.floor(Math.max(0, d.step - deal.auction.length) / 4) + 1;
}

/** The decisions the replay's frame shows: the auction's (and announcements') at step 0,
 *  a trick's four cards (and its belots and announcements) after it. */
export function evaluationBox(ctx, review, deal, step, nameOf) {
  const { t } = ctx;
  const shown = review.decisions.filter((d) => d.deal === deal.index && frameOf(deal, d) === step);
  return h("section.replay-box.analysis-evaluation", { "data-testid": "analysis-evaluation" },
    h("h2", {}, t("analysis.evaluation")),
    shown.length
      ? h("ul", {}, shown.map((d) => h("li", { "data-step": d.step },
        h("span.who", {}, nameOf(d.seat)), decisionLine(ctx, d))))
      : h("p.history-empty", {}, t("analysis.nothing_here")));
}
