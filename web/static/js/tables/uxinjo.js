// Uxinjo: three players, a stock with its revealed card, the discard pile, punktobio
// markers between each pair, exposed Jx, levu, penalties and the claim window.
import { badge, box, captioned, cardName, cardRow, el, facts, HIDDEN, plural, signed, tableShell, termLink } from "./common.js";

const T = (word, text) => termLink("uxinjo", word, text);

const FINITO = 6;

function stockBox(s) {
  const count = s.stock_count ?? 0;
  const cards = el("div", { class: "t-stack-row" });
  if (count) cards.append(captioned(HIDDEN, el("span", { class: "t-stock-count" }, plural(count, "card"))));
  else cards.append(el("p", { class: "t-stock-count" }, "0 cards"));
  if (s.revealed) cards.append(captioned(s.revealed, el("span", {}, el("strong", {}, "revealed"), el("br"), cardName(s.revealed)), { cls: "t-revealed" }));
  return box("Stock", "t-stock", cards,
    el("p", { class: "t-note" }, "The revealed card and the bottom card stay in the stock and are never drawn."));
}

function discardBox(s) {
  const count = s.discard_count ?? 0;
  const row = el("div", { class: "t-stack-row" });
  if (s.top_discard) {
    row.append(captioned(s.top_discard, `Top: ${cardName(s.top_discard)}`, { cls: "t-top" }));
  } else {
    row.append(el("p", { class: "t-muted" }, "empty"));
  }
  return box("Discard pile", "t-discards", row,
    el("p", { class: "t-discard-count" }, `${plural(count, "discard")} in the pile`),
    s.taken ? el("p", {}, `Just taken from the pile: ${cardName(s.taken)}`) : null);
}

function dealBox(s) {
  const levu = s.levu || [];
  return box("This deal", "t-deal-box", facts([
    ["points needed", el("strong", { class: "t-points-needed" }, String(s.points_needed ?? "–"))],
    [T("levu"), levu.length ? levu.join(", ") + (s.levu_void ? " — void (all three declared)" : "") : "none"],
    ["turn", s.active],
    ["next dealer", s.next_dealer],
    ["end", s.end ? String(s.end) : null],
  ]));
}

function windowBox(s) {
  const w = s.window;
  if (!w) return null;
  const answers = el("ul", { class: "t-answers" });
  for (const [player, answer] of Object.entries(w.answers || {})) {
    answers.append(el("li", {}, el("strong", {}, player), ": ", answer ? String(answer) : "waiting…"));
  }
  return box(T("claim window", "Claim window"), "t-window t-alert",
    el("div", { class: "t-stack-row" }, captioned(w.card, `${w.discarder} discarded ${cardName(w.card)}`)),
    answers,
    w.last ? el("p", {}, badge("last window", "warn"), " Both must answer; if both pass the deal is drawn.") : null);
}

/** One marker track from −6 to +6, the marker leaning to the player it favours. */
function markerItem(a, b, value) {
  const v = Math.max(-FINITO, Math.min(FINITO, value || 0));
  let text;
  if (v === 0) text = "level";
  else text = `${v > 0 ? a : b} ${signed(Math.abs(v))}${Math.abs(v) === FINITO ? " (finito)" : ""}`;
  const track = el("span", { class: "t-track", "aria-hidden": "true" });
  // leftmost cell is a's finito (+6 for a), rightmost is b's
  for (let i = FINITO; i >= -FINITO; i--) {
    track.append(el("span", { class: `t-track-cell${i === v ? " t-track-marker" : ""}${i === 0 ? " t-track-zero" : ""}` }));
  }
  return el("li", { class: "t-marker", data: { a, b, value: String(value) } },
    el("span", { class: "t-marker-pair" }, `${a} – ${b}: `), el("strong", { class: "t-marker-text" }, text),
    el("span", { class: "t-marker-ends", "aria-hidden": "true" }, el("span", {}, a), track, el("span", {}, b)));
}

function markersBox(s) {
  const players = s.players || [];
  const markers = s.markers || {};
  const list = el("ul", { class: "t-markers" });
  for (let i = 0; i < players.length; i++) {
    for (let j = i + 1; j < players.length; j++) {
      const a = players[i];
      const b = players[j];
      list.append(markerItem(a, b, (markers[a] || {})[b] ?? 0));
    }
  }
  const mp = s.mp ? el("p", {}, "Match points: ", Object.entries(s.mp).map(([p, v]) => `${p} ${signed(v)}`).join(", ")) : null;
  return box([T("punktobio", "Punktobio"), " markers"], "t-markers-box", list, mp);
}

export function render(s, opts = {}) {
  const exposed = s.exposed || {};
  const penalties = s.penalties || {};
  const fouls = s.fouls || {};
  const levu = s.levu || [];
  return tableShell(s, {
    title: "Uxinjo",
    game: "uxinjo",
    opts,
    subtitle: [el("span", {}, `${plural(s.points_needed ?? 2, "point")} needed`)],
    centre: [windowBox(s), stockBox(s), discardBox(s)],
    side: [dealBox(s), markersBox(s)],
    seat: (p) => ({
      badges: [
        levu.includes(p) ? badge(T("levu", s.levu_void ? "levu (void)" : "levu"), "levu") : null,
        s.active === p && !(s.to_act || []).includes(p) ? badge("their turn", "active") : null,
        penalties[p] ? badge(T("penalty", `penalty ×${penalties[p]}`), "warn") : null,
      ],
      facts: [
        ["markers", Object.entries((s.markers || {})[p] || {}).map(([o, v]) => `${o} ${signed(v)}`).join(", ") || null],
        ["penalties", penalties[p] ? String(penalties[p]) : null],
        ["fouls", fouls[p] ? String(fouls[p]) : null],
        ["match points", s.mp && p in s.mp ? signed(s.mp[p]) : null],
      ],
      extras: [(exposed[p] || []).length ? el("div", { class: "t-exposed" },
        el("p", { class: "t-label" }, "Exposed (", T("eltiri"), "):"), cardRow(exposed[p], { small: true })) : null],
    }),
  });
}
