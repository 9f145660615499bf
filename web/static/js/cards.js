// Card drawing for kartludo: the 38-card Jx deck (Uxinjo, Hakamo) and the French
// decks (Laugavatnsmanni 52, Svoi Kozyri 36). Every card is an inline <svg> with a
// spoken name, so a screen reader hears "red 7" or "10 of hearts", never a code.
//
// Colour is never the only cue: each Jx colour has its own shape (red ● circle,
// green ▲ triangle, blue ■ square) and its name printed on the card; French suits
// are drawn as shapes (♠♥♦♣), red for hearts and diamonds, black for the others.

const SVG_NS = "http://www.w3.org/2000/svg";

export const HIDDEN = "??";

const JX_COLOURS = {
  R: { name: "red", ink: "#b3261e", tint: "#fdecea", shape: "circle" },
  G: { name: "green", ink: "#1b6e33", tint: "#e6f4e9", shape: "triangle" },
  B: { name: "blue", ink: "#1d4fa8", tint: "#e7eefb", shape: "square" },
};

export const SUIT_NAMES = { S: "spades", H: "hearts", D: "diamonds", C: "clubs" };
export const SUIT_SYMBOLS = { S: "♠", H: "♥", D: "♦", C: "♣" };
const RANK_NAMES = { A: "ace", K: "king", Q: "queen", J: "jack", T: "10" };
const FRENCH_RANKS = "AKQJT98765432";

/** The 38 cards of the Jx deck in canonical order (PJ and AJ twice). */
export const JX_DECK = [
  ..."RGB".split("").flatMap((c) => [1, 2, 3, 4, 5, 6, 7, 8, 9].map((n) => `${c}${n}`)),
  "RX", "GX", "BX", "RV", "GV", "BV", "C", "PJ", "PJ", "AJ", "AJ",
];
/** The 52-card French deck, suit by suit (S H D C), each high to low. */
export const FRENCH_DECK = "SHDC".split("").flatMap((s) => FRENCH_RANKS.split("").map((r) => r + s));

function isJxColoured(code) {
  return typeof code === "string" && code.length === 2 && code[0] in JX_COLOURS && /^[1-9XV]$/.test(code[1]);
}

function isFrench(code) {
  return typeof code === "string" && code.length === 2 && FRENCH_RANKS.includes(code[0]) && code[1] in SUIT_NAMES;
}

/** A spoken name: "red 7", "green X", "Centro", "PJx", "10 of hearts", "face-down card". */
export function cardName(code) {
  if (code === HIDDEN) return "face-down card";
  if (code === "C") return "Centro";
  if (code === "PJ") return "PJx";
  if (code === "AJ") return "AJx";
  if (isJxColoured(code)) return `${JX_COLOURS[code[0]].name} ${code[1]}`;
  if (isFrench(code)) return `${RANK_NAMES[code[0]] || code[0]} of ${SUIT_NAMES[code[1]]}`;
  return String(code);
}

function esc(text) {
  return String(text).replace(/[&<>"']/g, (ch) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[ch]);
}

const FONT = `font-family="system-ui, 'Segoe UI', 'DejaVu Sans', Arial, sans-serif"`;

// --- shapes (all drawn in a 100×100 box, then placed with a transform) ----------------

const SUIT_PATHS = {
  H: `<path d="M50 92 C22 68 4 52 4 32 C4 16 16 6 29 6 C39 6 46 12 50 21 C54 12 61 6 71 6 C84 6 96 16 96 32 C96 52 78 68 50 92 Z"/>`,
  D: `<path d="M50 3 L88 50 L50 97 L12 50 Z"/>`,
  S: `<path d="M50 4 C64 24 96 40 96 62 C96 76 85 84 74 84 C64 84 57 78 54 72 C55 82 58 89 66 96 L34 96 C42 89 45 82 46 72 C43 78 36 84 26 84 C15 84 4 76 4 62 C4 40 36 24 50 4 Z"/>`,
  C: `<circle cx="50" cy="27" r="21"/><circle cx="26" cy="60" r="21"/><circle cx="74" cy="60" r="21"/>` +
    `<circle cx="50" cy="54" r="12"/><path d="M45 56 L55 56 C55 76 59 88 67 96 L33 96 C41 88 45 76 45 56 Z"/>`,
};

const JX_SHAPES = {
  circle: `<circle cx="50" cy="50" r="46"/>`,
  triangle: `<path d="M50 4 L96 92 L4 92 Z"/>`,
  square: `<rect x="8" y="8" width="84" height="84" rx="4"/>`,
};

const STAR = `<path d="M50 3 L61 37 L97 37 L68 58 L79 93 L50 72 L21 93 L32 58 L3 37 L39 37 Z"/>`;
const HEXAGON = `<path d="M50 3 L91 26 L91 74 L50 97 L9 74 L9 26 Z"/>`;

/** ``shape`` (in its 100-unit box) drawn ``size`` wide with its top-left at x, y. */
function place(shape, x, y, size, attrs = "", rotate = false) {
  const s = size / 100;
  const rot = rotate ? ` rotate(180 50 50)` : "";
  return `<g transform="translate(${x} ${y}) scale(${s})${rot}" ${attrs}>${shape}</g>`;
}

// --- faces ------------------------------------------------------------------------------

const W = 56;
const H = 80;

function frame(fill = "#ffffff", stroke = "#4a4a4a") {
  return `<rect x="0.75" y="0.75" width="${W - 1.5}" height="${H - 1.5}" rx="5" fill="${fill}" stroke="${stroke}" stroke-width="1.5"/>`;
}

function jxColouredFace(code, small) {
  const col = JX_COLOURS[code[0]];
  const mark = code[1];
  const shape = JX_SHAPES[col.shape];
  const big = mark === "X" || mark === "V" ? 34 : 38;
  const parts = [
    frame("#ffffff", col.ink),
    `<rect x="3" y="3" width="${W - 6}" height="${H - 6}" rx="3" fill="${col.tint}"/>`,
    // pale shape behind the number: the colour's shape, large
    place(shape, 8, 20, 40, `fill="${col.ink}" fill-opacity="0.13"`),
    // corner shapes: a cue that does not depend on seeing colour
    place(shape, 5, 5, small ? 12 : 10, `fill="${col.ink}"`),
    place(shape, W - (small ? 17 : 15), H - (small ? 17 : 15), small ? 12 : 10, `fill="${col.ink}"`),
    `<text x="${W / 2}" y="${small ? 54 : 52}" text-anchor="middle" font-size="${big}" font-weight="800" fill="${col.ink}" ${FONT}>${esc(mark)}</text>`,
  ];
  if (!small) {
    parts.push(`<text x="${W / 2 - 4}" y="${H - 6}" text-anchor="middle" font-size="9" font-weight="700" fill="${col.ink}" ${FONT}>${col.name}</text>`);
    if (mark === "V") {
      parts.push(`<text x="${W - 6}" y="14" text-anchor="end" font-size="8" fill="${col.ink}" ${FONT}>=5</text>`);
    }
  }
  return parts.join("");
}

function centroFace(small) {
  const ink = "#4a3000";
  return [
    frame("#ffe082", "#8d6e00"),
    `<circle cx="${W / 2}" cy="${H / 2 - 2}" r="21" fill="#fff8e1" stroke="${ink}" stroke-width="2"/>`,
    `<circle cx="${W / 2}" cy="${H / 2 - 2}" r="15" fill="none" stroke="${ink}" stroke-width="1" stroke-dasharray="2 2"/>`,
    `<text x="${W / 2}" y="${H / 2 + 9}" text-anchor="middle" font-size="28" font-weight="800" fill="${ink}" ${FONT}>C</text>`,
    small ? "" : `<text x="${W / 2}" y="${H - 6}" text-anchor="middle" font-size="9" font-weight="700" fill="${ink}" ${FONT}>Centro</text>`,
    small ? "" : `<text x="${W / 2}" y="11" text-anchor="middle" font-size="7" fill="${ink}" ${FONT}>✦ ✦ ✦</text>`,
  ].join("");
}

function jokerFace(code, small) {
  const pj = code === "PJ";
  const bg = pj ? "#4a1d7a" : "#17323f";
  const ink = pj ? "#ffffff" : "#ffd166";
  const emblem = pj ? STAR : HEXAGON;
  return [
    frame(bg, "#111"),
    `<rect x="3" y="3" width="${W - 6}" height="${H - 6}" rx="3" fill="none" stroke="${ink}" stroke-opacity="0.55" stroke-width="1"/>`,
    place(emblem, 12, 12, 32, `fill="${ink}" fill-opacity="0.18"`),
    place(emblem, 5, 5, small ? 11 : 9, `fill="${ink}"`),
    place(emblem, W - (small ? 16 : 14), H - (small ? 16 : 14), small ? 11 : 9, `fill="${ink}"`),
    `<text x="${W / 2}" y="${small ? 50 : 46}" text-anchor="middle" font-size="${small ? 22 : 21}" font-weight="800" fill="${ink}" ${FONT}>${pj ? "PJ" : "AJ"}<tspan font-size="12" font-weight="700">x</tspan></text>`,
    small ? "" : `<text x="${W / 2 - 3}" y="${H - 7}" text-anchor="middle" font-size="8" font-weight="700" fill="${ink}" ${FONT}>${pj ? "wild ★" : "wild ⬢"}</text>`,
  ].join("");
}

function frenchFace(code, small) {
  const rank = code[0];
  const suit = code[1];
  const red = suit === "H" || suit === "D";
  const ink = red ? "#c1121f" : "#111111";
  const label = rank === "T" ? "10" : rank;
  const shape = SUIT_PATHS[suit];
  const court = "AKQJ".includes(rank);
  const idxSize = small ? 17 : 15;
  const parts = [frame("#ffffff", "#4a4a4a")];
  // corner index: rank over suit, top left and (turned) bottom right
  parts.push(`<text x="${label.length > 1 ? 3 : 5}" y="${small ? 17 : 15}" font-size="${idxSize}" font-weight="800" fill="${ink}" ${FONT}${label.length > 1 ? ' letter-spacing="-1"' : ""}>${label}</text>`);
  parts.push(place(shape, 5, small ? 20 : 18, small ? 11 : 9, `fill="${ink}"`));
  if (!small) {
    parts.push(`<g transform="rotate(180 ${W / 2} ${H / 2})">` +
      `<text x="${label.length > 1 ? 3 : 5}" y="15" font-size="15" font-weight="800" fill="${ink}" ${FONT}${label.length > 1 ? ' letter-spacing="-1"' : ""}>${label}</text>` +
      place(shape, 5, 18, 9, `fill="${ink}"`) + `</g>`);
  }
  if (court) {
    if (!small) parts.push(`<rect x="15" y="17" width="26" height="46" rx="3" fill="none" stroke="${ink}" stroke-opacity="0.5"/>`);
    parts.push(`<text x="${W / 2 + (small ? 6 : 0)}" y="${small ? 50 : 46}" text-anchor="middle" font-size="${small ? 24 : 22}" font-weight="800" fill="${ink}" ${FONT}>${label}</text>`);
    if (!small) parts.push(place(shape, 21, 49, 14, `fill="${ink}"`));
  } else {
    const size = small ? 26 : 28;
    parts.push(place(shape, W / 2 - size / 2 + (small ? 5 : 0), H / 2 - size / 2 + (small ? 6 : 0), size, `fill="${ink}"`));
  }
  return parts.join("");
}

function backFace() {
  const parts = [frame("#1f3d7a", "#0d1f40"),
    `<rect x="4" y="4" width="${W - 8}" height="${H - 8}" rx="3" fill="#274c94" stroke="#c9d6f2" stroke-width="1"/>`];
  // a lattice of small diamonds inside the inner frame
  let d = "";
  for (let y = 9; y <= H - 9; y += 8) {
    const shift = ((y - 9) / 8) % 2 ? 4 : 0;
    for (let x = 9 + shift; x <= W - 9; x += 8) {
      d += `M${x} ${y - 3}L${x + 3} ${y}L${x} ${y + 3}L${x - 3} ${y}Z`;
    }
  }
  parts.push(`<path d="${d}" fill="#8fb0ea" fill-opacity="0.55"/>`);
  parts.push(`<circle cx="${W / 2}" cy="${H / 2}" r="9" fill="#1f3d7a" stroke="#c9d6f2" stroke-width="1.2"/>`);
  parts.push(`<text x="${W / 2}" y="${H / 2 + 4}" text-anchor="middle" font-size="11" font-weight="800" fill="#e6edfb" ${FONT}>k</text>`);
  return parts.join("");
}

function unknownFace(code, small) {
  const text = String(code).slice(0, 4);
  return frame("#eeeeee", "#666") +
    `<text x="${W / 2}" y="${H / 2 + 6}" text-anchor="middle" font-size="${small ? 18 : 16}" font-weight="700" fill="#333" ${FONT}>${esc(text)}</text>`;
}

function faceOf(code, small) {
  if (code === HIDDEN) return backFace();
  if (code === "C") return centroFace(small);
  if (code === "PJ" || code === "AJ") return jokerFace(code, small);
  if (isJxColoured(code)) return jxColouredFace(code, small);
  if (isFrench(code)) return frenchFace(code, small);
  return unknownFace(code, small);
}

function kindOf(code) {
  if (code === HIDDEN) return "back";
  if (code === "C") return "centro";
  if (code === "PJ" || code === "AJ") return "jx-wild";
  if (isJxColoured(code)) return `jx jx-${JX_COLOURS[code[0]].name}`;
  if (isFrench(code)) return `french suit-${SUIT_NAMES[code[1]]}`;
  return "unknown";
}

/** The card's <svg> markup, a string (app/casebook/diagrams.py draws the very same, checked by a test). */
export function cardMarkup(code, { small = false } = {}) {
  const name = cardName(code);
  const width = small ? 36 : 56;
  const height = small ? 52 : 80;
  return `<svg xmlns="${SVG_NS}" viewBox="0 0 ${W} ${H}" width="${width}" height="${height}" role="img" ` +
    `aria-label="${esc(name)}" class="card-svg card-${kindOf(code)}" focusable="false"><title>${esc(name)}</title>` +
    `${faceOf(code, small)}</svg>`;
}

/** An <svg role="img"> of the card, ~56×80 px (``small``: ~36×52). */
export function cardSVG(code, { small = false } = {}) {
  const markup = cardMarkup(code, { small });
  const tpl = document.createElement("template");
  tpl.innerHTML = markup;
  return tpl.content.firstElementChild;
}

/**
 * A card in a wrapper with ``data-card``: a <button class="card playable"> when
 * ``action`` = {label, onClick} is given, else a <span class="card">.
 */
export function cardElement(code, { small = false, action = null } = {}) {
  const svg = cardSVG(code, { small });
  let el;
  if (action) {
    el = document.createElement("button");
    el.type = "button";
    el.className = "card playable";
    el.setAttribute("aria-label", action.label);
    el.title = action.label;
    el.addEventListener("click", (ev) => action.onClick(ev, code));
  } else {
    el = document.createElement("span");
    el.className = "card";
  }
  if (small) el.classList.add("card-small");
  if (code === HIDDEN) el.classList.add("card-back");
  el.dataset.card = code;
  el.append(svg);
  return el;
}

/** A <div class="t-cards"> of cards; ``opts.actionFor(code)`` gives each card's action (or null). */
export function cardRow(codes, opts = {}) {
  const row = document.createElement("div");
  row.className = "t-cards";
  const { actionFor, ...rest } = opts || {};
  for (const code of codes || []) {
    const action = typeof actionFor === "function" ? actionFor(code) : (rest.action || null);
    row.append(cardElement(code, { ...rest, action }));
  }
  return row;
}
