// The animations' pace (issue #35): slow, normal or fast, a setting of this browser.
// CSS reads it as --pace, a factor on the table's animations (css/table-comfort.css);
// the table's own pauses (a finished trick held, its sweep) go through paced().

import { t } from "./i18n.js";

export const PACE_KEY = "belote.animationPace";
const FACTORS = { slow: 1.8, normal: 1, fast: 0.45 };
const DEFAULT = Object.keys(FACTORS).find((pace) => FACTORS[pace] === 1); // the pace as designed

/** The chosen pace's name: slow, normal or fast. */
export function animationPace() {
  const stored = localStorage.getItem(PACE_KEY);
  return stored in FACTORS ? stored : DEFAULT;
}

/** `ms` at the chosen pace. */
export function paced(ms) {
  return ms * FACTORS[animationPace()];
}

/** Keep `pace` and give CSS its factor. */
export function setAnimationPace(pace) {
  localStorage.setItem(PACE_KEY, pace in FACTORS ? pace : DEFAULT);
  applyPace();
}

export function applyPace() {
  document.documentElement.style.setProperty("--pace", String(FACTORS[animationPace()]));
}

/** The settings menu's choice of pace, its options in the current language. */
export function paceOptions() {
  return Object.keys(FACTORS).map((pace) => ({ value: pace, label: t(`pace.${pace}`), selected: pace === animationPace() }));
}
