// The table's sounds, made in the browser with Web Audio (oscillators, a noise burst, gain
// envelopes): no files. One AudioContext, made within a user gesture, since browsers keep
// audio back until the page gets one. The switch is remembered; without a choice it is
// on only where the browser says audio may start without a click (docs/client.md).

import { storedFlag, storeFlag } from "./dom.js";

export const SOUNDS_KEY = "belote.sounds";
const HURRY_MS = 5000; // "time almost up": this long before the own turn's deadline
const CARD = /^[789TJQKA][CDHS]/;

// Each sound as notes: [wave, Hz at the start, Hz at the end, start s, length s, peak gain].
const VOICES = {
  turn: [["sine", 660, 660, 0, 0.18, 0.16], ["sine", 988, 988, 0.13, 0.3, 0.14]],
  card: [["triangle", 190, 80, 0, 0.07, 0.14]], // with a short noise burst: the card's snap
  trick: [["triangle", 587, 587, 0, 0.12, 0.1], ["triangle", 440, 440, 0.09, 0.2, 0.1]],
  deal: [["sine", 523, 523, 0, 0.2, 0.12], ["sine", 659, 659, 0.12, 0.2, 0.12], ["sine", 784, 784, 0.24, 0.4, 0.12]],
  hurry: [["square", 1046, 1046, 0, 0.07, 0.05], ["square", 1046, 1046, 0.15, 0.07, 0.05]],
};

let context = null;
let hurried = null; // the deadline whose "time almost up" was played
let longer = null; // a deadline seen with more than HURRY_MS left

/** Whether this browser lets audio start before any click (only one that says so). */
function allowedUnprompted() {
  try {
    return navigator.getAutoplayPolicy?.("audiocontext") === "allowed";
  } catch {
    return false;
  }
}

export function soundsOn() {
  return storedFlag(SOUNDS_KEY, allowedUnprompted());
}

/** The switch: remembered; turning it on is a click, so audio may start now. */
export function setSounds(on) {
  storeFlag(SOUNDS_KEY, on);
  if (on) wake();
}

/** Make or resume the one AudioContext: only within a user gesture does it run. */
function wake() {
  const Context = window.AudioContext || window.webkitAudioContext;
  if (!Context) return;
  if (!context) context = new Context();
  if (context.state === "suspended") context.resume().catch(() => {});
}

// A reload with sounds on: audio runs again from the page's first click or key.
for (const type of ["pointerdown", "keydown"]) {
  document.addEventListener(type, () => {
    if (soundsOn() && (!context || context.state !== "running")) wake();
  }, { capture: true });
}

/** Play one of VOICES by name, if sounds are on and audio runs (nothing is queued). */
export function play(name) {
  if (!soundsOn() || !context || context.state !== "running") return;
  const now = context.currentTime + 0.01;
  for (const [wave, from, to, at, length, peak] of VOICES[name]) {
    const osc = context.createOscillator();
    const gain = context.createGain();
    osc.type = wave;
    osc.frequency.setValueAtTime(from, now + at);
    if (to !== from) osc.frequency.exponentialRampToValueAtTime(to, now + at + length);
    envelope(gain.gain, now + at, length, peak);
    osc.connect(gain).connect(context.destination);
    osc.start(now + at);
    osc.stop(now + at + length + 0.02);
  }
  if (name === "card") snap(now);
}

/** A quick attack, then an exponential fade: no clicks at either end. */
function envelope(param, start, length, peak) {
  param.setValueAtTime(0.0001, start);
  param.exponentialRampToValueAtTime(peak, start + Math.min(0.015, length / 4));
  param.exponentialRampToValueAtTime(0.0001, start + length);
}

/** 60 ms of band-passed noise: a card put down on cloth. */
function snap(now) {
  const length = 0.06;
  const buffer = context.createBuffer(1, Math.ceil(context.sampleRate * length), context.sampleRate);
  const samples = buffer.getChannelData(0);
  for (let i = 0; i < samples.length; i += 1) samples[i] = (Math.random() * 2 - 1) * (1 - i / samples.length);
  const source = context.createBufferSource();
  const filter = context.createBiquadFilter();
  const gain = context.createGain();
  source.buffer = buffer;
  filter.type = "bandpass";
  filter.frequency.value = 2400;
  envelope(gain.gain, now, length, 0.25);
  source.connect(filter).connect(gain).connect(context.destination);
  source.start(now);
}

/** The sounds of a frame shown after `before`: a card played (for the players at the
 *  table: a spectator would hear every card of four bots), the deal over, and the
 *  viewer's turn when it becomes theirs, and is timed (not a bot playing the seat). The
 *  trick's sound goes with its sweep. */
export function frameSounds(before, frame) {
  const event = frame.type === "event" ? frame.event : null;
  const seated = frame.seat !== null && frame.seat !== undefined;
  const sounds = [];
  if (seated && event && event.kind === "action" && CARD.test(event.action)) sounds.push("card");
  if (event && event.deal_results && event.deal_results.length) sounds.push("deal");
  else if (seated && before && before.turn !== frame.seat && frame.turn === frame.seat
    && frame.deadline && frame.table.status === "playing") sounds.push("turn");
  return sounds;
}

/** "Time almost up", once per own turn, when `left` ms remain of the turn that ends at
 *  `deadline`; not for a turn shorter than that, which would sound at once. */
export function hurry(deadline, left) {
  if (left > HURRY_MS) longer = deadline;
  else if (left > 0 && longer === deadline && hurried !== deadline) {
    hurried = deadline;
    play("hurry");
  }
}
