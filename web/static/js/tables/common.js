// Shared pieces of the table renderers: elements, badges, seat panels, the table shell.
import { cardElement, cardName, cardRow, HIDDEN, SUIT_NAMES, SUIT_SYMBOLS } from "../cards.js";
import { el } from "../dom.js";
import { termLink } from "../terms.js";

export { cardElement, cardName, cardRow, HIDDEN, SUIT_NAMES, SUIT_SYMBOLS };

export { el, termLink };

/** +4, -2, 0 */
export function signed(n) {
  if (typeof n !== "number") return n === null || n === undefined ? "–" : String(n);
  return n > 0 ? `+${n}` : String(n);
}

export function plural(n, one, many = one + "s") {
  return `${n} ${n === 1 ? one : many}`;
}

/** A small label; ``kind`` adds class t-badge-<kind>. */
export function badge(text, kind = "", title = null) {
  return el("span", { class: `t-badge${kind ? " t-badge-" + kind : ""}`, title }, text);
}

/** Humanized phase names shared by the games. */
const PHASES = {
  waiting_deal: "waiting for the next deal",
  finished: "match over",
  turn: "turn: draw or take",
  discard: "turn: discard",
  claim: "claim window",
  judging: "judging claims",
  auction: "auction",
  kasxetoj: "Kasxetoj: keep or exchange",
  lay: "Kasxetoj: laying",
  kunulo: "Kunulo: solo or recruit",
  shares: "Kunulo auction",
  no_kunulo: "no Kunulo: solo or resign",
  declaration: "declaration",
  tricks: "tricks",
  passed_out: "passed out",
  contract: "choosing the contract",
  great: "great calls",
  hold: "hold or yield",
  exchange: "Manni exchange",
  play: "tricks",
  scoring: "scoring",
  lead: "lead",
  beat: "beat or pick up",
  extra: "extra card",
  free: "free play",
};

export function phaseText(phase) {
  return PHASES[phase] || String(phase || "").replace(/_/g, " ");
}

/** The game word a phase is about (its rules section): game -> phase -> word of terms.js. */
const PHASE_TERMS = {
  uxinjo: { claim: "claim window", judging: "claim window" },
  hakamo: { auction: "auction", kasxetoj: "kasxetoj", lay: "kasxetoj", kunulo: "kunulo", shares: "kunulo",
    no_kunulo: "kunulo", declaration: "declaration", tricks: "tricks" },
  laugavatnsmanni: { contract: "contract", great: "great", hold: "great", exchange: "manni", play: "tricks" },
  "svoi-kozyri": { beat: "beat", extra: "extra card", free: "free play" },
};

/** The phase in words, linked to the rules section of its game word where it has one. */
export function phaseNode(game, phase) {
  const word = (PHASE_TERMS[game] || {})[phase];
  return word ? termLink(game, word, phaseText(phase)) : document.createTextNode(phaseText(phase));
}

const ORDINALS = ["1st", "2nd", "3rd"];
export const ordinal = (n) => ORDINALS[n - 1] || `${n}th`;

/**
 * The end of a match (``state.result``, there once the match is over): the winner or
 * winners and the final ranking, best first, with the game's own total (and match
 * points where the game gives them).
 */
export function resultBox(state) {
  const r = state.result;
  if (!r) return null;
  const winners = r.winners || [];
  const mp = r.match_points;
  const list = el("ol", { class: "t-ranking", "aria-label": "Final ranking" });
  for (const row of r.ranking || []) {
    list.append(el("li", { class: row.rank === 1 ? "t-first" : null, data: { player: row.player, rank: String(row.rank) } },
      el("span", { class: "t-rank" }, ordinal(row.rank)), " ", el("strong", {}, row.player), " ",
      // points signed (+4, -1); a count where fewer is better (losses) as it is
      el("span", { class: "t-score" }, `${(r.score_name || "total").replaceAll("_", " ")} ${r.higher_is_better === false ? row.score : signed(row.score)}`),
      mp && r.score_name !== "match_points" ? el("span", { class: "t-score" }, ` · MP ${signed(mp[row.player])}`) : null));
  }
  // a duplicate board is one deal, closed when it ends: it counts only against the other tables' results on it
  const board = state.board;
  const head = winners.length === 0 ? "No winner"
    : board ? `${winners.join(" and ")} ${winners.length === 1 ? "has" : "share"} this table's best score`
      : winners.length === 1 ? `${winners[0]} wins the match` : `${winners.join(" and ")} share first place`;
  return box(board ? `Board ${board.board}` : "Result", "t-result t-alert",
    el("p", { class: "t-winner-line" }, el("strong", { id: "winner" }, head),
      board ? " (scored against the other tables: see the traveller)" : r.closed ? " (closed at the series deadline)" : ""),
    list,
    el("p", { class: "t-note" }, r.higher_is_better === false ? "Fewer is better." : "More is better.",
      " Ties share a place."));
}

/** The cards a viewer sees of ``player``'s hand: the faces if present, else backs. */
export function handCodes(state, player) {
  const hands = state.hands || {};
  if (Array.isArray(hands[player])) return hands[player];
  const n = (state.hand_sizes || {})[player] || 0;
  return Array.from({ length: n }, () => HIDDEN);
}

/** Whose seat is drawn at the bottom: the one player whose hand this view shows, else the first. */
export function viewerOf(state) {
  const players = state.players || [];
  const shown = players.filter((p) => Array.isArray((state.hands || {})[p]));
  return shown.length === 1 && players.length > 1 ? shown[0] : null;
}

/** Players in table order from the bottom seat (``bottom``, else the viewer's), clockwise. */
export function tableOrder(state, bottom = null) {
  const players = state.players || [];
  const me = players.includes(bottom) ? bottom : viewerOf(state);
  const start = me ? players.indexOf(me) : 0;
  return players.map((_, i) => players[(start + i) % players.length]);
}

const POSITIONS = { 1: ["bottom"], 2: ["bottom", "top"], 3: ["bottom", "left", "right"], 4: ["bottom", "left", "top", "right"] };

/** A definition list of [term, value] rows (rows with value null/undefined are left out). */
export function facts(rows, cls = "") {
  const dl = el("dl", { class: `t-facts ${cls}`.trim() });
  for (const [term, value] of rows) {
    if (value === null || value === undefined || value === false) continue;
    const name = term instanceof Node ? term.textContent : Array.isArray(term) ? term.map((t) => (t instanceof Node ? t.textContent : t)).join("") : term;
    dl.append(el("div", { class: "t-fact", data: { fact: name } }, el("dt", {}, term), el("dd", {}, value)));
  }
  return dl;
}

/** A titled box in the centre area. */
export function box(title, cls, ...children) {
  const id = uid("t-box");
  return el("section", { class: `t-box ${cls || ""}`.trim(), "aria-labelledby": id },
    el("h3", { id }, title), ...children);
}

let counter = 0;
export function uid(prefix) {
  counter += 1;
  return `${prefix}-${counter}`;
}

/** One card with a caption below it (e.g. "revealed", a player's name). */
export function captioned(code, caption, { small = false, cls = "" } = {}) {
  return el("figure", { class: `t-captioned ${cls}`.trim() }, cardElement(code, { small }),
    el("figcaption", {}, caption));
}

/** A list of plays: [{player, card, note?, cls?}] each as a card with the player's name. */
export function playsList(plays, label, { small = false, empty = "no cards yet" } = {}) {
  if (!plays || plays.length === 0) return el("p", { class: "t-muted" }, empty);
  const ol = el("ol", { class: "t-plays", "aria-label": label });
  for (const p of plays) {
    const li = el("li", { class: `t-play ${p.cls || ""}`.trim() }, cardElement(p.card, { small }),
      el("span", { class: "t-play-who" }, p.player));
    if (p.note) li.append(el("span", { class: "t-play-note" }, p.note));
    ol.append(li);
  }
  return ol;
}

/**
 * A seat panel: name, seat label, dealer / to-act badges, total, hand size, game extras
 * and the hand (faces if the view has them, backs otherwise).
 */
export function seatPanel(state, player, opts = {}, game = {}) {
  const toAct = (state.to_act || []).includes(player);
  const seatLabel = state.seats ? state.seats[player] : null;
  const id = uid("t-seat");
  const hand = handCodes(state, player);
  const visible = Array.isArray((state.hands || {})[player]);
  const panel = el("section", {
    class: `t-seat${toAct ? " t-to-act" : ""}${game.cls ? " " + game.cls : ""}`,
    "aria-labelledby": id,
    data: { player },
  });
  const head = el("header", { class: "t-seat-head" },
    el("h3", { id, class: "t-seat-name" }, player),
    seatLabel ? badge(`seat ${seatLabel}`, "seat") : null,
    state.dealer === player ? badge("dealer", "dealer", "deals this deal") : null,
    ...(game.badges || []),
    toAct ? badge("to act", "to-act") : null);
  panel.append(head);
  const totals = state.totals || {};
  const size = (state.hand_sizes || {})[player];
  panel.append(facts([
    [game.totalLabel || "total", game.totalText ? game.totalText(totals[player]) : signed(totals[player])],
    ["hand", size === undefined ? null : plural(size, "card")],
    ...(game.facts || []),
  ], "t-seat-facts"));
  for (const extra of game.extras || []) if (extra) panel.append(extra);
  const actionFor = typeof opts.actionFor === "function" ? (code) => (code === HIDDEN ? null : opts.actionFor(code, player)) : null;
  const row = cardRow(hand, { small: !!game.smallHand, actionFor });
  row.classList.add("t-hand");
  row.setAttribute("role", "group");
  row.setAttribute("aria-label", `${player}'s hand: ${visible ? plural(hand.length, "card") : plural(hand.length, "card") + " face down"}`);
  if (hand.length === 0) row.append(el("span", { class: "t-muted" }, "no cards"));
  panel.append(row);
  return panel;
}

/**
 * The table: a header (game, deal, phase, to act), the centre area and a seat panel per
 * player placed round it (bottom, left, top, right; stacked on narrow screens).
 */
export function tableShell(state, { title, game, dealText = null, subtitle = [], centre = [], side = [], seat = () => ({}), opts = {}, after = [] }) {
  const order = tableOrder(state, opts.bottom);
  const n = order.length;
  const positions = POSITIONS[n] || order.map(() => "bottom");
  const headId = uid("t-head");
  const section = el("section", {
    class: `t-table t-${game} t-n${n}`,
    "aria-labelledby": headId,
    data: { game, phase: state.phase || "", deal: String(state.deal ?? "") },
  });
  const toAct = state.to_act || [];
  const headFacts = [
    el("span", { class: "t-deal" }, dealText || `Deal ${state.deal ?? 0}`),
    ...subtitle,
    el("span", { class: "t-phase" }, "Phase: ", el("strong", {}, phaseNode(game, state.phase))),
    toAct.length ? el("span", { class: "t-head-to-act" }, "To act: ", el("strong", {}, toAct.join(", "))) : null,
    state.status === "finished" && state.phase !== "finished" ? badge("match over", "finished") : null,
  ].filter(Boolean);
  section.append(el("header", { class: "t-head" },
    el("h2", { id: headId }, title),
    el("p", { class: "t-head-facts" }, ...headFacts.flatMap((f, i) => (i ? [el("span", { class: "t-sep", "aria-hidden": "true" }, " · "), f] : [f])))));
  const grid = el("div", { class: "t-grid" });
  const centreBox = el("section", { class: "t-centre", "aria-label": "Table centre" },
    ...[resultBox(state), ...centre].filter(Boolean));
  grid.append(centreBox);
  order.forEach((player, i) => {
    // every seat's cards the same size (a live table's own hand is also docked, full size)
    const panel = seatPanel(state, player, opts, { smallHand: !!opts.smallHands, ...seat(player, i) });
    panel.classList.add(`t-pos-${positions[i] || "bottom"}`);
    grid.append(panel);
  });
  section.append(grid);
  // what the current moment needs sits in the centre; the deal's and match's other facts
  // go below the seats, so the seats, the trick or pile and the hands fit one screen
  const rest = side.filter(Boolean);
  if (rest.length) section.append(el("section", { class: "t-side", "aria-label": "Deal and match" }, ...rest));
  for (const a of after) if (a) section.append(a);
  return section;
}

/** Text for a suit: "♥ hearts". */
export function suitText(s) {
  return s ? `${SUIT_SYMBOLS[s] || "?"} ${SUIT_NAMES[s] || s}` : "none";
}

/** A suit badge, red suits in red, black in black, always with the symbol and the name. */
export function suitBadge(s, prefix = "") {
  const red = s === "H" || s === "D";
  return el("span", { class: `t-suit ${red ? "t-suit-red" : "t-suit-black"}` },
    prefix, el("span", { class: "t-suit-symbol", "aria-hidden": "true" }, SUIT_SYMBOLS[s] || "?"), " ", SUIT_NAMES[s] || s);
}

const JX = { R: ["red", "●"], G: ["green", "▲"], B: ["blue", "■"] };

/** A Jx colour badge: the colour's shape and name. */
export function colourBadge(c, suffix = "") {
  const [name, shape] = JX[c] || [String(c), "?"];
  return el("span", { class: `t-jx t-jx-${name}` },
    el("span", { class: "t-jx-shape", "aria-hidden": "true" }, shape), " ", name, suffix);
}
