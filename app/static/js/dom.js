// Tiny DOM helpers: every view builds elements with h() and replaces its subtree.

/** h("div.a.b#id", {attrs}, ...children): an element; attrs starting with "on" bind events. */
export function h(tag, attrs = {}, ...children) {
  const [name, ...rest] = tag.split(/(?=[.#])/);
  const el = document.createElement(name || "div");
  for (const part of rest) {
    if (part[0] === ".") el.classList.add(part.slice(1));
    else el.id = part.slice(1);
  }
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === null || value === undefined || value === false) continue;
    if (key.startsWith("on")) el.addEventListener(key.slice(2).toLowerCase(), value);
    else if (key === "dataset") Object.assign(el.dataset, value);
    else if (key === "text") el.textContent = value;
    else if (key === "value") el.value = value;
    else el.setAttribute(key, value === true ? "" : String(value));
  }
  append(el, children);
  return el;
}

function append(el, children) {
  for (const child of children.flat(Infinity)) {
    if (child === null || child === undefined || child === false) continue;
    el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
}

/** A small SVG drawing with the class `className` (no font has to hold an emoji); hidden
 *  from screen readers, as the button or text beside it says what it means. */
export function icon(className, markup) {
  const svg = document.createElementNS("http://www.w3.org/2000/svg", "svg");
  svg.setAttribute("viewBox", "0 0 24 24");
  svg.setAttribute("class", className);
  svg.setAttribute("aria-hidden", "true");
  svg.innerHTML = markup;
  return svg;
}

/** Replace every child of `el`. */
export function fill(el, ...children) {
  el.replaceChildren();
  append(el, children);
  return el;
}

/** Remember a boolean setting in localStorage (settings survive reloads). */
export function storedFlag(key, fallback) {
  const raw = localStorage.getItem(key);
  return raw === null ? fallback : raw === "1";
}

export function storeFlag(key, value) {
  localStorage.setItem(key, value ? "1" : "0");
}
