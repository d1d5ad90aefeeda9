// Misclicks on touch screens (issue #35). With "Tap twice to play" (on by default where
// the main pointer is coarse, i.e. a finger), a card's first tap lifts it and a second
// tap on it plays it; a bid's first tap marks it ("Tap again") and a second sends it.
// A tap elsewhere, or a new state of the table, forgets the first. Keys act at once.

import { storedFlag } from "./dom.js";
import { t } from "./i18n.js";

export const TWO_TAP_KEY = "belote.twoTap";

/** The setting's value when the player never chose: on for a finger. */
export function twoTapDefault() {
  return matchMedia("(pointer: coarse)").matches;
}

export function twoTapOn() {
  return storedFlag(TWO_TAP_KEY, twoTapDefault());
}

/** A guard for one table: `tap(kind, value, version)` is true when the action may go
 *  (the setting is off, or this is the second tap on the same thing of the same state),
 *  else it arms that thing and the table redraws it lifted (`mark`). */
export function tapGuard() {
  let armed = null; // {key, version}
  return {
    tap(kind, value, version) {
      const key = `${kind}:${value}`;
      if (!twoTapOn() || (armed && armed.key === key && armed.version === version)) {
        armed = null;
        return true;
      }
      armed = { key, version };
      return false;
    },
    forget() {
      armed = null;
    },
    /** Lift the armed card, or mark the armed bid with its hint, in the drawn `felt`. */
    mark(felt, version) {
      if (!armed || armed.version !== version) return;
      const [kind, value] = armed.key.split(/:(.*)/s);
      const target = kind === "card" ? felt.querySelector(`#hand [data-card="${value}"]`)
        : felt.querySelector(`.bids [data-action="${value}"]`);
      if (!target) return;
      target.classList.add("armed");
      target.setAttribute("aria-pressed", "true");
      if (kind === "bid") {
        const hint = document.createElement("span");
        hint.className = "tap-again";
        hint.textContent = t("confirm.tap_again");
        target.append(hint);
      }
    },
  };
}
