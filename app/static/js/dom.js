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
    // Through the CSSOM: the site's Content-Security-Policy refuses style attributes.
    else if (key === "style") el.style.cssText = value;
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

/** A menu that `toggle` opens and closes (`aria-expanded`, the class `open` on `menu`); a
 *  press elsewhere or Escape closes it, and a click on one of its links or buttons. */
export function popupMenu(toggle, menu) {
  const show = (open) => {
    menu.classList.toggle("open", open);
    toggle.setAttribute("aria-expanded", String(open));
  };
  toggle.addEventListener("click", () => show(!menu.classList.contains("open")));
  menu.addEventListener("click", (event) => {
    if (event.target.closest("a, button")) show(false);
  });
  document.addEventListener("pointerdown", (event) => {
    if (!menu.contains(event.target) && !toggle.contains(event.target)) show(false);
  });
  document.addEventListener("keydown", (event) => {
    if (event.key === "Escape" && menu.classList.contains("open")) {
      show(false);
      toggle.focus();
    }
  });
}
