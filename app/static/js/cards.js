// Playing cards as inline SVG: corner indices, pips or a framed face, and a patterned back.

const NS = "http://www.w3.org/2000/svg";
const SYMBOLS = { C: "♣", D: "♦", H: "♥", S: "♠" };
const RANK_TEXT = { 7: "7", 8: "8", 9: "9", T: "10", J: "J", Q: "Q", K: "K", A: "A" };
const COLOURS = { red: "#c0392b", black: "#1d1d1f", green: "#1e7b3c", blue: "#1f5fbf" };

// Suit shapes drawn in a 100x100 box, so cards never depend on a font's glyphs.
const circle = (cx, cy, r) => `M${cx - r} ${cy}a${r} ${r} 0 1 0 ${2 * r} 0a${r} ${r} 0 1 0 ${-2 * r} 0Z`;
const SHAPES = {
  H: "M50 92C22 68 2 50 2 29 2 12 14 2 28 2c10 0 18 6 22 15C54 8 62 2 72 2c14 0 26 10 26 27 0 21-20 39-48 63Z",
  D: "M50 2Q68 28 88 50 68 72 50 98 32 72 12 50 32 28 50 2Z",
  S: "M50 2C34 24 4 38 4 62c0 15 11 25 24 25 9 0 16-4 20-11-1 11-7 18-16 24h36c-9-6-15-13-16-24 4 7 11 11 20 11 13 0 24-10 24-25C96 38 66 24 50 2Z",
  C: circle(50, 27, 22) + circle(25, 60, 22) + circle(75, 60, 22) + "M45 58C45 78 40 90 30 98H70C60 90 55 78 55 58Z",
};

// Pip positions (x, y) on a 100x140 card; pips in the lower half are drawn upside down.
const L = 33, C = 50, R = 67;
const PIPS = {
  7: [[L, 32], [R, 32], [C, 52], [L, 72], [R, 72], [L, 108], [R, 108]],
  8: [[L, 32], [R, 32], [C, 52], [L, 72], [R, 72], [C, 88], [L, 108], [R, 108]],
  9: [[L, 32], [R, 32], [L, 57], [R, 57], [C, 70], [L, 83], [R, 83], [L, 108], [R, 108]],
  T: [[L, 32], [R, 32], [C, 45], [L, 57], [R, 57], [L, 83], [R, 83], [C, 95], [L, 108], [R, 108]],
};

export function suitSymbol(suit) {
  return SYMBOLS[suit] || suit;
}

export function rankText(rank) {
  return RANK_TEXT[rank] || rank;
}

/** The colour a suit is printed in: red/black, or the four-colour deck's. */
export function suitColour(suit, fourColour = false) {
  if (fourColour && suit === "C") return COLOURS.green;
  if (fourColour && suit === "D") return COLOURS.blue;
  return suit === "H" || suit === "D" ? COLOURS.red : COLOURS.black;
}

function svg(tag, attrs = {}, ...children) {
  const el = document.createElementNS(NS, tag);
  for (const [key, value] of Object.entries(attrs)) el.setAttribute(key, String(value));
  el.append(...children);
  return el;
}

function suitShape(suit, x, y, size, colour, flip = false) {
  const scale = size / 100;
  const turn = flip ? ` rotate(180 ${x} ${y})` : "";
  return svg("path", {
    d: SHAPES[suit], fill: colour,
    transform: `${turn} translate(${x - size / 2} ${y - size / 2}) scale(${scale})`.trim(),
  });
}

function corner(rank, suit, colour, flip) {
  const group = svg("g", flip ? { transform: "rotate(180 50 70)" } : {});
  const text = svg("text", {
    x: 13, y: 25, "text-anchor": "middle", fill: colour, "font-size": rank === "T" ? 21 : 24,
    "font-weight": 700, "font-family": "Georgia, 'DejaVu Serif', serif",
    "letter-spacing": rank === "T" ? -2 : 0,
  });
  text.textContent = rankText(rank);
  group.append(text, suitShape(suit, 13, 37, 15, colour));
  return group;
}

function face(rank, suit, colour) {
  const group = svg("g");
  group.append(
    svg("rect", { x: 25, y: 20, width: 50, height: 100, rx: 6, fill: "#fbf3df",
                  stroke: colour, "stroke-width": 1.5 }),
    svg("rect", { x: 29, y: 24, width: 42, height: 92, rx: 4, fill: "none",
                  stroke: colour, "stroke-width": 0.6, "stroke-dasharray": "2 2" }),
    suitShape(suit, 38, 35, 13, colour),
    suitShape(suit, 62, 105, 13, colour, true),
  );
  const letter = svg("text", {
    x: 50, y: 84, "text-anchor": "middle", fill: colour, "font-size": 46, "font-weight": 700,
    "font-family": "Georgia, 'DejaVu Serif', serif",
  });
  letter.textContent = rank;
  group.append(letter);
  return group;
}

/** A face-up card, e.g. cardSvg("TH"); `fourColour` prints clubs green and diamonds blue. */
export function cardSvg(card, { fourColour = false } = {}) {
  const rank = card[0], suit = card[1];
  const colour = suitColour(suit, fourColour);
  const root = svg("svg", { viewBox: "0 0 100 140", class: "card-svg", role: "img",
                            "aria-label": `${rankText(rank)}${suitSymbol(suit)}` });
  root.append(
    svg("rect", { x: 1, y: 1, width: 98, height: 138, rx: 8, fill: "#fffdf8",
                  stroke: "#b9b2a4", "stroke-width": 1.2 }),
    corner(rank, suit, colour, false),
    corner(rank, suit, colour, true),
  );
  if (rank === "A") root.append(suitShape(suit, 50, 70, 44, colour));
  else if (PIPS[rank]) {
    for (const [x, y] of PIPS[rank]) root.append(suitShape(suit, x, y, 17, colour, y > 75));
  } else root.append(face(rank, suit, colour));
  return root;
}

/** The back of a card: a lattice in a framed panel. */
export function cardBack() {
  const root = svg("svg", { viewBox: "0 0 100 140", class: "card-svg card-back", "aria-hidden": "true" });
  const inner = svg("svg", { x: 7, y: 7, width: 86, height: 126, viewBox: "0 0 86 126" });
  inner.append(svg("rect", { width: 86, height: 126, fill: "#7a1f2b" }));
  let lines = "";
  for (let i = -126; i < 86; i += 9) lines += `M${i} 0l126 126M${i + 126} 0l-126 126`;
  inner.append(
    svg("path", { d: lines, stroke: "#b8485a", "stroke-width": 1.4, fill: "none" }),
    svg("rect", { x: 25, y: 45, width: 36, height: 36, rx: 18, fill: "#7a1f2b",
                  stroke: "#e9c98a", "stroke-width": 2 }),
    suitShape("S", 43, 63, 18, "#e9c98a"),
  );
  root.append(
    svg("rect", { x: 1, y: 1, width: 98, height: 138, rx: 8, fill: "#fffdf8",
                  stroke: "#b9b2a4", "stroke-width": 1.2 }),
    inner,
    svg("rect", { x: 7, y: 7, width: 86, height: 126, rx: 4, fill: "none",
                  stroke: "#e9c98a", "stroke-width": 1.5 }),
  );
  return root;
}

const SUIT_ORDER = ["S", "H", "C", "D"]; // alternating colours
const PLAIN_ORDER = "ATKQJ987";
const TRUMP_ORDER = "J9ATKQ87";

/** The hand for display: suits grouped with colours alternating, the trump suit first,
 *  strongest card first (trump order for trumps, "AT" counts every suit as trump). */
export function sortHand(cards, contract) {
  const trump = SUIT_ORDER.includes(contract) ? contract : null;
  const start = trump ? SUIT_ORDER.indexOf(trump) : 0;
  const suits = SUIT_ORDER.map((_, i) => SUIT_ORDER[(start + i) % 4]);
  const isTrump = (suit) => contract === "AT" || suit === trump;
  const key = (card) => {
    const order = isTrump(card[1]) ? TRUMP_ORDER : PLAIN_ORDER;
    return suits.indexOf(card[1]) * 10 + order.indexOf(card[0]);
  };
  return [...cards].sort((a, b) => key(a) - key(b));
}
