// A variant's named presets in the create-table form (Coinche's seven, COINCHE.md §9.2):
// choosing one sets the flags it names and lists them under it; a flag changed after that
// overrides the preset, as the engine takes it. What each preset sets is the server's
// (GET /api/variants/presets), fetched once.

import { api } from "./api.js";
import { h, fill } from "./dom.js";
import { t } from "./i18n.js";

let loading = null;

/** {variant: {preset: {flag: value}}}, fetched once; a failed fetch is tried again. */
export function presetSets() {
  loading ??= api("GET", "/api/variants/presets").catch((error) => { loading = null; throw error; });
  return loading;
}

function valueText(name, value) {
  if (typeof value === "boolean") return t(value ? "help.rule_on" : "help.rule_off");
  if (typeof value === "number") return String(value);
  return t(`flag.${name}.${value}`);
}

/** The flags a preset sets, in words: "Points to win: 2000 · …", or "the defaults". */
function presetNote(sets) {
  const entries = Object.entries(sets || {});
  if (!entries.length) return t("preset.defaults");
  return entries.map(([name, value]) => `${t(`flag.${name}`)}: ${valueText(name, value)}`).join(" · ");
}

/** Put a control of the form (named `opt-<flag>`) to `value`, as if the player had: the
 *  form's draft keeps it through a redraw. */
function setControl(form, name, value) {
  const el = form.elements[`opt-${name}`];
  if (!el) return;
  if (el.type === "checkbox") el.checked = value;
  else el.value = String(value);
  el.dispatchEvent(new Event("change", { bubbles: true }));
}

/** Wire the preset select of `rules` (the form's house-rules part), if the variant has
 *  one: choosing a preset puts every flag to the defaults, then to the preset's values,
 *  and says which it set. `sets` is this variant's {preset: {flag: value}}. */
export function wirePresets(rules, flags, sets) {
  const select = rules.querySelector("select[name=opt-preset]");
  if (!select || !sets) return;
  const note = h("p.preset-note.muted.small", { "data-testid": "preset-note", "aria-live": "polite" });
  rules.prepend(select.closest("label"), note); // the rule set first: the flags follow from it
  const show = () => fill(note, presetNote(sets[select.value]));
  select.addEventListener("change", () => {
    for (const [name, spec] of Object.entries(flags)) if (name !== "preset") setControl(rules.closest("form"), name, spec.default);
    for (const [name, value] of Object.entries(sets[select.value] || {})) setControl(rules.closest("form"), name, value);
    show();
  });
  show();
}

/** The values a table starts from under the preset chosen in `form`: what a flag is
 *  compared with to tell whether the player changed it. */
export function presetBase(form, sets) {
  const select = form.elements["opt-preset"];
  return (select && sets && sets[select.value]) || {};
}
