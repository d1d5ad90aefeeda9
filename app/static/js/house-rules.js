// A table's house rules (RULES.md §9) in words, for every place that shows a table: the
// lobby row, the waiting room, the table's rules dialog and the match page. The flags,
// their defaults and their values are the server's (GET /api/variants); the words are
// the create form's (`flag.*` in core.json), so a rule reads the same everywhere.

import { api } from "./api.js";
import { h, fill } from "./dom.js";
import { t } from "./i18n.js";

let specs = null; // {variant: {flag: {default, values, max?}}}, once loaded
let loading = null;

/** Each variant's flags with their defaults and values, fetched once; a failed fetch is
 *  tried again at the next call. */
export function variantSpecs() {
  loading ??= api("GET", "/api/variants").then(
    (served) => { specs = served; return served; },
    (error) => { loading = null; throw error; });
  return loading;
}

function valueText(name, value) {
  if (typeof value === "boolean") return t(value ? "help.rule_on" : "help.rule_off");
  if (typeof value === "number") return String(value);
  return t(`flag.${name}.${value}`);
}

/** Every flag of `variant` with the table's value (`options` may hold every flag, as a
 *  live table sends them, or only the changed ones, as a stored match does), in words,
 *  each marked `changed` when it differs from the variant's default. */
function houseRules(flags, options) {
  return Object.entries(flags).map(([name, spec]) => {
    const value = name in options ? options[name] : spec.default;
    return { name, changed: value !== spec.default, label: t(`flag.${name}`), value: valueText(name, value) };
  });
}

/** Draw into `el` once the flags are known: at once when they are (no flicker on a
 *  redraw), else when they arrive; a failed fetch leaves `el` empty. */
function whenKnown(el, draw) {
  if (specs) draw(specs);
  else variantSpecs().then(draw, () => {});
  return el;
}

/** One line: the rules that differ from the variant's default, or "standard rules";
 *  `omit`: flags shown elsewhere beside it (the table's score badge shows the target). */
export function houseRulesLine(variant, options, { omit = [] } = {}) {
  const line = h("p.house-rules-line", { "data-testid": "house-rules" });
  return whenKnown(line, (known) => {
    const changed = houseRules(known[variant] || {}, options || {})
      .filter((rule) => rule.changed && !omit.includes(rule.name));
    line.classList.toggle("standard", !changed.length);
    fill(line, changed.length
      ? [h("span.house-rules-title", {}, t("help.house_rules")), " ",
        changed.map((rule, i) => [i ? " · " : "", h("span.house-rule", { "data-flag": rule.name },
          `${rule.label}: `, h("strong", {}, rule.value))])]
      : t("help.standard_rules"));
  });
}

/** The scale a table's deals are scored by: the flags `names` of its rules in words, one
 *  line (the score sheet's; the flags not in the variant are left out). */
export function houseRulesScale(variant, options, names) {
  const line = h("p.house-rules-line.scale", { "data-testid": "score-scale" });
  return whenKnown(line, (known) => {
    const rules = houseRules(known[variant] || {}, options || {}).filter((rule) => names.includes(rule.name));
    fill(line, rules.length ? [h("span.house-rules-title", {}, t("coinche.scale")), " ",
      rules.map((rule, i) => [i ? " · " : "", h("span.house-rule", { "data-flag": rule.name },
        `${rule.label}: `, h("strong", {}, rule.value))])] : null);
  });
}

/** Every house rule of the table, the changed ones marked: the table's rules dialog. */
export function houseRulesList(variant, options) {
  const list = h("ul.house-rules-list", { "data-testid": "table-house-rules" });
  return whenKnown(list, (known) => fill(list, houseRules(known[variant] || {}, options || {}).map((rule) =>
    h(`li${rule.changed ? ".changed" : ""}`, { "data-flag": rule.name },
      h("span.rule-label", {}, rule.label),
      h("span.rule-value", {}, rule.value,
        rule.changed ? h("span.changed-tag", {}, t("help.changed")) : null)))));
}

/** A house rule's control in a form, named `opt-<flag>`, set to the variant's default. */
export function flagControl(name, spec) {
  const control = `opt-${name}`;
  const label = t(`flag.${name}`);
  if (typeof spec.default === "boolean") {
    return h("label.flag.check", {},
      h("input", { type: "checkbox", name: control, checked: spec.default }), h("span", {}, label));
  }
  if (!spec.values.length) {
    return h("label.flag", {}, h("span", {}, label),
      h("input", { type: "number", name: control, min: 1, max: spec.max, step: 1, value: spec.default }));
  }
  return h("label.flag", {}, h("span", {}, label),
    h("select", { name: control },
      spec.values.map((value) => h("option", { value, selected: value === spec.default },
        typeof value === "number" ? String(value) : t(`flag.${name}.${value}`)))));
}

/** The flags whose control differs from the variant's default, or from the value the
 *  chosen preset gives it (`base`). */
export function changedOptions(form, flags, base = {}) {
  const options = {};
  for (const [name, spec] of Object.entries(flags)) {
    const el = form.elements[`opt-${name}`];
    const value = typeof spec.default === "boolean" ? el.checked
      : typeof spec.default === "number" ? Number.parseInt(el.value, 10) : el.value;
    if (value !== (name in base ? base[name] : spec.default)) options[name] = value;
  }
  return options;
}
