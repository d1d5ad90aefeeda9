// Short notices for errors: the reason in the player's language, by the server's code.

import { h } from "./dom.js";
import { t } from "./i18n.js";

const SHOWN_MS = 4500;

/** The text for an error code, the server's message if no translation knows it. */
export function errorText(code, message) {
  const key = `error.${code}`;
  const text = t(key);
  return text === key ? message || t("error.unknown") : text;
}

/** toast(ApiError | {code, message}) */
export function toast(error) {
  const code = (error && error.code) || "unknown";
  const box = document.getElementById("toasts");
  const item = h("div.toast", { "data-code": code, role: "status" },
    errorText(code, error && error.message));
  box.append(item);
  setTimeout(() => item.classList.add("leaving"), SHOWN_MS - 400);
  setTimeout(() => item.remove(), SHOWN_MS);
}
