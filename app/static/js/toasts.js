// Short notices for errors: the reason in the player's language, by the server's code.

import { h } from "./dom.js";
import { t } from "./i18n.js";

const SHOWN_MS = 4500;

/** The translation of an error code, or null when the client has none. */
function translated(code) {
  const key = `error.${code}`;
  const text = t(key);
  return text === key ? null : text;
}

/** The text for an error code, the server's message if no translation knows it. */
export function errorText(code, message) {
  return translated(code) ?? (message || t("error.unknown"));
}

/** The reasons the client can tell for a request's refused values (a name kept for
 * bots...), each once; none when it knows none of their codes. */
export function fieldReasons(fields) {
  return [...new Set((fields || []).map((field) => translated(field.code)).filter(Boolean))];
}

/** toast(ApiError | {code, message, fields?}) */
export function toast(error) {
  const code = (error && error.code) || "unknown";
  const reasons = fieldReasons(error && error.fields);
  show(h("div.toast", { "data-code": code, role: "status" },
    reasons.length ? reasons.join(" ") : errorText(code, error && error.message)));
}

/** A short notice that is not an error ("Password changed"). */
export function notify(text) {
  show(h("div.toast.info", { role: "status" }, text));
}

function show(item) {
  const box = document.getElementById("toasts");
  box.append(item);
  setTimeout(() => item.classList.add("leaving"), SHOWN_MS - 400);
  setTimeout(() => item.remove(), SHOWN_MS);
}
