// The score keeper (issue #35): a sheet for a match played with real cards. Each deal is
// entered as a summary (contract, team, multiplier, card points, declarations, belots,
// valat) and the server scores it with the engine (POST /api/scoresheets/{id}/deals);
// this page only gathers the summary and shows what the server answered.

import { api, guest } from "./api.js";
import { h, fill } from "./dom.js";
import { changedOptions, flagControl, variantSpecs } from "./house-rules.js";
import { t } from "./i18n.js";
import { contractMark } from "./labels.js";
import { bidValueText, pointBid, strainName } from "./coinche-labels.js";
import { protocol } from "./protocol.js";

const COMBOS = ["tierce", "quarte", "quint", "carre-J", "carre-9", "carre-A", "carre-T", "carre-K", "carre-Q"];

function teamName(names, team) {
  return `${names[team]} & ${names[team + 2]}`;
}

function comboText(combo) {
  if (!combo.startsWith("carre-")) return t(`combo.${combo}`);
  return t("sheets.carre", { rank: combo.slice(6) === "T" ? "10" : combo.slice(6) });
}

/** A row of toggle buttons, one pressed: a phone's thumb finds them easier than a select. */
function choices(name, values, label, selected, onpick) {
  const row = h("div.sheet-choices", { role: "radiogroup", "data-testid": `sheet-${name}` });
  const draw = (current) => fill(row, values.map((value) => h("button.btn.sheet-choice", {
    type: "button", role: "radio", "aria-checked": String(value === current), "data-value": value,
    onclick: () => { draw(value); onpick(value); },
  }, label(value))));
  draw(selected);
  return row;
}

// ------------------------------------------------------------------ the list and a new sheet

function newSheetForm(ctx) {
  const rules = h("div.flags");
  const { values: variants, default: preset } = protocol.variants;
  const variant = h("select", { name: "variant" },
    variants.map((name) => h("option", { value: name, selected: name === preset }, t(`variant.${name}`))));
  const names = [0, 1, 2, 3].map((seat) => h("input", {
    name: `name${seat}`, maxlength: 32, required: true, autocomplete: "off",
    "data-testid": `sheet-name-${seat}`, placeholder: t("sheets.seat", { n: seat + 1 }),
    value: seat === 0 && guest() ? guest().name : "" }));
  const form = h("form.card.sheet-new", { "data-testid": "sheet-new" },
    h("h2", {}, t("sheets.new")),
    h("label", {}, h("span", {}, t("lobby.variant")), variant),
    h("fieldset.sheet-names", {}, h("legend", {}, t("sheets.names")),
      h("p.muted", {}, t("sheets.names_hint")), names),
    h("details.house-rules", {}, h("summary", {}, t("lobby.house_rules")), rules),
    h("button.btn.primary.big", { type: "submit", "data-testid": "sheet-create" }, t("sheets.start")));
  let flags = {};
  const showRules = async () => {
    flags = (await variantSpecs())[variant.value];
    fill(rules, Object.entries(flags).map(([name, spec]) => flagControl(name, spec)));
  };
  variant.addEventListener("change", showRules);
  showRules().catch(ctx.toast);
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const button = form.querySelector("[data-testid=sheet-create]");
    if (button.disabled) return;
    button.disabled = true;
    try {
      const sheet = await api("POST", "/api/scoresheets", {
        variant: variant.value, options: changedOptions(form, flags), names: names.map((n) => n.value.trim()) });
      ctx.navigate(`#/scores/${sheet.id}`);
    } catch (exc) {
      ctx.toast(exc);
      button.disabled = false;
    }
  });
  return form;
}

/** One line of the caller's sheets: its teams, the score, the winner or "in play". */
export function sheetRow(sheet) {
  const [a, b] = [teamName(sheet.names, 0), teamName(sheet.names, 1)];
  return h("li.sheet-row", { "data-testid": "sheet-row" },
    h("a", { href: `#/scores/${sheet.id}` },
      h("span.sheet-teams", {}, a, h("span.muted", {}, ` ${t("sheets.versus")} `), b),
      h("strong.sheet-score", {}, `${sheet.totals[0]} : ${sheet.totals[1]}`),
      h("span.muted", {}, t(`variant.${sheet.variant}`), " · ",
        new Date(sheet.created_at).toLocaleDateString(), " · ",
        sheet.winner === null ? t("sheets.in_play") : t("sheets.won", { team: teamName(sheet.names, sheet.winner) }))));
}

function renderList(root, ctx) {
  const list = h("ul.sheet-list", {}, h("li.empty", {}, "…"));
  fill(root, h("section.sheets", {},
    h("h1", {}, t("sheets.title")), h("p.muted", {}, t("sheets.intro")),
    h("div.sheets-grid", {}, newSheetForm(ctx),
      h("section.card", {}, h("h2", {}, t("sheets.yours")), list))));
  api("GET", "/api/scoresheets").then(
    (page) => fill(list, page.sheets.length ? page.sheets.map(sheetRow) : h("li.empty", {}, t("sheets.none"))),
    (exc) => { fill(list, h("li.empty", {}, t("lobby.unreachable"))); ctx.toast(exc); });
}

// ------------------------------------------------------------------ one sheet

/** A Coinche bid's value ("100", "capot") in words ("100", "Capot"): any strain after it
 *  makes a bid to read the value from. */
const valueText = (value) => bidValueText(pointBid(`${value}C`));

/** Coinche's own rows (COINCHE.md §10.4): the bid's value, its coinche level, and whether
 *  the declarer alone took every trick (a générale, where the rules have it). */
function coincheRows(sheet, entry, redraw) {
  const { bid_values: values, multipliers } = sheet.coinche;
  const level = (n) => (n === 0 ? t("sheets.not_coinched")
    : `${t(n === 1 ? "coinche.call.coinche" : "coinche.call.surcoinche")} ×${multipliers[n]}`);
  const alone = h("input", { type: "checkbox", "data-testid": "sheet-alone",
    onchange: (event) => { entry.declarer_all_tricks = event.target.checked; } });
  const aloneRow = h("label.sheet-field.sheet-alone", {}, alone, h("span", {}, t("sheets.alone")));
  const showAlone = () => {
    aloneRow.hidden = !values.includes("generale") || entry.valat !== entry.bidder_team;
    if (aloneRow.hidden) alone.checked = entry.declarer_all_tricks = false;
  };
  return {
    value: h("div.sheet-field", {}, h("span.sheet-label", {}, t("sheets.bid_value")),
      choices("value", values, valueText, entry.value, (v) => { entry.value = v; redraw(); })),
    level: h("div.sheet-field", {}, h("span.sheet-label", {}, t("sheets.coinche_level")),
      choices("level", [0, 1, 2], level, 0, (n) => { entry.coinche = n; })),
    alone: aloneRow, showAlone,
  };
}

/** The summary a Coinche or another variant's score tool reads (RECORD.md, COINCHE.md
 *  §10.4), from the form's entry and the bidding team's card points. */
function summaryOf(sheet, entry, card_points) {
  const { contract, bidder_team, multiplier, declarations, belot, valat } = entry;
  if (!sheet.coinche) return { contract, bidder_team, multiplier, card_points, declarations, belot, valat };
  return { contract: `${entry.value}${contract}`, bidder_team, coinche: entry.coinche, card_points,
    declarations, belot, capot: valat, declarer_all_tricks: entry.declarer_all_tricks };
}

/** The entry of the next deal; `send(summary)` posts it and redraws on success.  Every
 *  number it checks (card points, belots, a capot's points) is the sheet's, from the
 *  server's engine. */
function dealForm(sheet, send) {
  const coinche = sheet.coinche;
  const entry = { contract: sheet.contracts[0], bidder_team: 0, multiplier: 1, points: "",
    declarations: [[], []], belot: [0, 0], valat: null,
    value: coinche ? coinche.bid_values[0] : null, coinche: 0, declarer_all_tricks: false };
  const teams = [teamName(sheet.names, 0), teamName(sheet.names, 1)];
  const total = () => (coinche && entry.valat !== null ? coinche.capot_points[entry.value]
    : sheet.card_totals[entry.contract]);
  const points = h("input.sheet-points", { type: "number", inputmode: "numeric", min: 0, required: true,
    "data-testid": "sheet-points", "aria-describedby": "sheet-rest" });
  const rest = h("span#sheet-rest.muted", { "data-testid": "sheet-rest" });
  const showRest = () => {
    const given = Number.parseInt(points.value, 10);
    points.max = total();
    fill(rest, Number.isFinite(given)
      ? t("sheets.rest", { team: teams[1 - entry.bidder_team], points: total() - given })
      : t("sheets.points_hint", { total: total() }));
  };
  points.addEventListener("input", showRest);
  const pointsLabel = h("span");
  const label = () => fill(pointsLabel, t("sheets.points", { team: teams[entry.bidder_team] }));
  const declarations = h("div.sheet-declarations");
  const drawDeclarations = () => {
    const open = sheet.declaration_contracts.includes(entry.contract);
    declarations.hidden = !open;
    if (!open) entry.declarations = [[], []];
    fill(declarations, h("span.sheet-label", {}, t("sheets.declarations")), [0, 1].map((team) =>
      h("div.sheet-team-line", {}, h("span.sheet-team", {}, teams[team]),
        entry.declarations[team].map((combo, i) => h("button.sheet-chip", {
          type: "button", title: t("sheets.remove"), "data-testid": `sheet-declared-${team}`,
          onclick: () => { entry.declarations[team].splice(i, 1); drawDeclarations(); } }, comboText(combo), " ×")),
        h("select.sheet-add", { "aria-label": t("sheets.add_declaration", { team: teams[team] }),
          "data-testid": `sheet-add-declaration-${team}`,
          onchange: (event) => {
            if (event.target.value) entry.declarations[team].push(event.target.value);
            drawDeclarations();
          } },
        h("option", { value: "" }, t("sheets.add")),
        COMBOS.map((combo) => h("option", { value: combo }, comboText(combo)))))));
  };
  const belots = h("div.sheet-belots");
  const drawBelots = () => {
    const most = sheet.most_belots[entry.contract] ?? 0;
    entry.belot = entry.belot.map((n) => Math.min(n, most));
    belots.hidden = most === 0;
    fill(belots, h("span.sheet-label", {}, t("sheets.belot")), [0, 1].map((team) =>
      h("div.sheet-team-line", {}, h("span.sheet-team", {}, teams[team]),
        h("button.btn.step", { type: "button", "aria-label": t("sheets.less"), disabled: !entry.belot[team],
          onclick: () => { entry.belot[team] -= 1; drawBelots(); } }, "−"),
        h("output.sheet-count", { "data-testid": `sheet-belot-${team}` }, entry.belot[team]),
        h("button.btn.step", { type: "button", "aria-label": t("sheets.more"),
          disabled: entry.belot[0] + entry.belot[1] >= most, "data-testid": `sheet-belot-more-${team}`,
          onclick: () => { entry.belot[team] += 1; drawBelots(); } }, "+"))));
  };
  const syncValat = () => {
    if (entry.valat !== null) points.value = entry.valat === entry.bidder_team ? total() : 0;
  };
  const redraw = () => { syncValat(); label(); showRest(); drawDeclarations(); drawBelots(); if (own) own.showAlone(); };
  const own = coinche ? coincheRows(sheet, entry, redraw) : null;
  const multipliers = own ? own.level : sheet.multipliers.length > 1
    ? h("div.sheet-field", {}, h("span.sheet-label", {}, t("sheets.multiplier")),
      choices("multiplier", sheet.multipliers, (m) => `×${m}`, 1, (m) => { entry.multiplier = m; }))
    : null;
  const form = h("form.card.sheet-deal", { "data-testid": "sheet-deal", novalidate: true },
    h("h2", {}, t("sheets.deal", { n: sheet.deals.length + 1 })),
    own ? own.value : null,
    h("div.sheet-field", {}, h("span.sheet-label", {}, t(coinche ? "sheets.strain" : "sheets.contract")),
      choices("contract", sheet.contracts, (c) => contractMark(strainName(c)), entry.contract,
        (c) => { entry.contract = c; redraw(); })),
    h("div.sheet-field", {}, h("span.sheet-label", {}, t("sheets.bidder")),
      choices("bidder", [0, 1], (team) => teams[team], 0, (team) => { entry.bidder_team = team; redraw(); })),
    multipliers,
    h("label.sheet-field", {}, pointsLabel, points, rest),
    declarations, belots,
    h("div.sheet-field", {}, h("span.sheet-label", {}, t(coinche ? "sheets.capot" : "sheets.valat")),
      choices("valat", ["none", 0, 1], (v) => (v === "none" ? t("sheets.nobody") : teams[v]), "none", (v) => {
        entry.valat = v === "none" ? null : v;
        redraw();
      })),
    own ? own.alone : null,
    h("button.btn.primary.big", { type: "submit", "data-testid": "sheet-score" }, t("sheets.score")));
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const given = Number.parseInt(points.value, 10);
    if (!Number.isFinite(given) || given < 0 || given > total()) {
      points.focus();
      fill(rest, h("span.sheet-error", {}, t("sheets.points_hint", { total: total() })));
      return;
    }
    const mine = entry.bidder_team;
    const card_points = mine === 0 ? [given, total() - given] : [total() - given, given];
    send(summaryOf(sheet, entry, card_points), form.querySelector("[data-testid=sheet-score]"));
  });
  redraw();
  return form;
}

function dealRows(sheet) {
  return sheet.deals.map(({ result, summary }, i) => h("tr", { "data-testid": "sheet-deal-row" },
    h("td", {}, i + 1),
    h("td", {}, contractMark(result.contract, result.multiplier)),
    h("td", {}, sheet.names[summary.bidder_team], " & ", sheet.names[summary.bidder_team + 2]),
    h("td.outcome", {}, t(`sheets.outcome.${result.outcome}`)),
    h("td.num", {}, result.score[0]), h("td.num", {}, result.score[1])));
}

function renderSheet(root, ctx, id) {
  let busy = false;
  const draw = (sheet) => {
    const refusal = h("div.sheet-refusal", { role: "alert" });
    const teams = [teamName(sheet.names, 0), teamName(sheet.names, 1)];
    const send = async (summary, button) => {
      if (busy) return;
      busy = true;
      button.disabled = true;
      try {
        await api("POST", `/api/scoresheets/${id}/deals`, summary);
        draw(await api("GET", `/api/scoresheets/${id}`));
      } catch (exc) {
        if (exc.code === "impossible_deal") {
          fill(refusal, h("p.card.sheet-error", { "data-testid": "sheet-refused" },
            t("error.impossible_deal"), " ", h("span.muted", {}, exc.message)));
        } else ctx.toast(exc);
        button.disabled = false;
      } finally {
        busy = false;
      }
    };
    const undo = async () => {
      if (busy) return;
      busy = true;
      try {
        draw(await api("DELETE", `/api/scoresheets/${id}/deals/last`));
      } catch (exc) {
        ctx.toast(exc);
      } finally {
        busy = false;
      }
    };
    fill(root, h("section.sheets.sheet", { "data-testid": "sheet" },
      h("p", {}, h("a", { href: "#/scores" }, t("sheets.all"))),
      h("div.card.sheet-totals", { "data-testid": "sheet-totals" },
        [0, 1].map((team) => h(`div.sheet-total${sheet.winner === team ? ".won" : ""}`, {},
          h("span.sheet-team", {}, teams[team]), h("strong", { "data-testid": `sheet-total-${team}` }, sheet.totals[team]))),
        h("p.muted.sheet-meta", {}, t(`variant.${sheet.variant}`), " · ", t("lobby.target", { target: sheet.target }),
          sheet.hanging ? [" · ", t("sheets.hanging", { n: sheet.hanging })] : null),
        sheet.winner === null ? null
          : h("p.sheet-winner", { "data-testid": "sheet-winner" }, t("sheets.won", { team: teams[sheet.winner] }))),
      refusal,
      sheet.winner === null ? dealForm(sheet, send) : null,
      sheet.deals.length ? h("div.card.sheet-deals", {},
        h("table.sheet-table", {},
          h("thead", {}, h("tr", {}, h("th", {}, "#"), h("th", {}, t("sheets.contract")), h("th", {}, t("sheets.bidder")),
            h("th", {}, ""), h("th.num", {}, teams[0]), h("th.num", {}, teams[1]))),
          h("tbody", {}, dealRows(sheet))),
        h("button.btn.ghost", { type: "button", "data-testid": "sheet-undo", onclick: undo }, t("sheets.undo"))) : null));
  };
  fill(root, h("p.muted", {}, "…"));
  api("GET", `/api/scoresheets/${id}`).then((sheet) => draw(sheet), (exc) => {
    fill(root, h("div.card.error", {}, t(`error.${exc.code}`)));
  });
}

/** `#/scores` (the caller's sheets and a new one) or `#/scores/<id>` (one sheet). */
export function renderScores(root, ctx, id) {
  if (id) renderSheet(root, ctx, decodeURIComponent(id));
  else renderList(root, ctx);
  return null;
}
