// The replay viewer: one deal step by step, the table drawn at each step, the event
// list beside it. The URL (?deal=&step=&view=) always names the moment shown.
import { api, ApiError, el, errorBox, gameTitle, page, show, storedToken, takeTokenFromFragment } from "../api.js";
import { renderTable } from "../tables/index.js";
import { clocksBar } from "../clock.js";

const { main, data } = page();
const matchId = data.match;
takeTokenFromFragment(matchId);
const token = storedToken(matchId); // a seat or TD token given as #token=… for this match
const params = new URLSearchParams(location.search);

const cache = new Map(); // "deal|view" -> replay JSON
let rep = null; // the replay shown
let k = 1; // the step shown (1-based)
let views = ["all"]; // what `v` cycles through
let nodes = {};
let notes = new Map(); // event position -> the hearing annotations on it (this deal)

/** The annotations of this deal's rulings (hearing comments), by event position. Readable
 * by anyone once the deal has ended, by a TD before; otherwise there are none to show. */
let rulingsHere = []; // this deal's rulings (for the comment form)

async function loadNotes() {
  notes = new Map();
  rulingsHere = [];
  let rulings;
  try {
    rulings = (await api(`/audit?match=${encodeURIComponent(matchId)}`, { token })).filter((r) => r.deal === rep.deal);
  } catch {
    return;
  }
  rulingsHere = rulings;
  const lists = await Promise.all(rulings.map((r) =>
    api(`/audit/${encodeURIComponent(r.match)}/${encodeURIComponent(r.ruling_id)}/annotations`, { token })
      .then((list) => list.map((a) => ({ ...a, ruling: r.id })))
      .catch(() => [])));
  for (const a of lists.flat()) {
    if (!notes.has(a.position)) notes.set(a.position, []);
    notes.get(a.position).push(a);
  }
}

async function fetchReplay(deal, view) {
  const key = `${deal ?? "latest"}|${view ?? ""}`;
  if (!cache.has(key)) {
    const q = new URLSearchParams();
    if (deal) q.set("deal", deal);
    if (view) q.set("view", view);
    cache.set(key, api(`/matches/${encodeURIComponent(matchId)}/replay?${q}`, { token }).catch((err) => {
      cache.delete(key);
      throw err;
    }));
  }
  return cache.get(key);
}

function viewLabel(view) {
  if (view === "all") return "all hands";
  if (view === "public") return "public view";
  return `${view}'s view`;
}

function stepURL(step, view = rep.view) {
  const q = new URLSearchParams({ deal: rep.deal, step, view });
  return `${location.pathname}?${q}`;
}

// --- moving ---------------------------------------------------------------------------
// A turn is a run of events by one actor; a trick is its card plays and the event that
// closes it (the server numbers them: step.turn). ↑/↓ go from one's end to the next's.
const unitOf = (i) => rep.steps[i - 1].turn;
const endOf = (unit) => {
  let end = 0;
  rep.steps.forEach((s) => { if (s.turn === unit) end = s.step; });
  return end;
};

const moves = {
  next: () => Math.min(k + 1, rep.steps.length),
  prev: () => Math.max(k - 1, 1),
  first: () => 1,
  last: () => rep.steps.length,
  nextTurn: () => {
    const unit = unitOf(k);
    const end = endOf(unit);
    if (k < end) return end;
    return unit < unitOf(rep.steps.length) ? endOf(unit + 1) : k;
  },
  prevTurn: () => (unitOf(k) > 0 ? endOf(unitOf(k) - 1) : 1),
  nextRuling: () => {
    for (let i = k + 1; i <= rep.steps.length; i += 1) if (rep.steps[i - 1].ruling) return i;
    return k;
  },
  prevRuling: () => {
    for (let i = k - 1; i >= 1; i -= 1) if (rep.steps[i - 1].ruling) return i;
    return k;
  },
};

function go(to) {
  if (!rep || to === k) return;
  k = to;
  drawStep();
}

async function cycleView() {
  const at = views.indexOf(rep.view);
  for (let i = 1; i <= views.length; i += 1) {
    const view = views[(at + i) % views.length];
    try {
      const next = await fetchReplay(rep.deal, view);
      rep = next;
      k = Math.min(k, rep.steps.length);
      drawAll();
      return;
    } catch (err) {
      if (!(err instanceof ApiError && err.status === 403)) throw err;
    }
  }
}

async function openDeal(deal) {
  const view = rep ? rep.view : null;
  let next;
  try {
    next = await fetchReplay(deal, view);
  } catch (err) {
    if (!(err instanceof ApiError && err.status === 403)) throw err;
    next = await fetchReplay(deal, null);
  }
  rep = next;
  k = 1;
  setViews();
  await loadNotes();
  drawAll();
}

function setViews() {
  const players = rep.steps[0].state.players;
  views = rep.ended ? ["all", ...players] : [...new Set([rep.view, "public"])];
}

// --- drawing --------------------------------------------------------------------------
// [move, key, label, what it does, label on a phone (the buttons then fit one row)]
const KEYS = [
  ["first", "Home", "« First", "first step", "«"],
  ["prevTurn", "ArrowUp", "↑ Turn", "previous turn or trick", "↑"],
  ["prev", "ArrowLeft", "← Back", "previous event", "←"],
  ["next", "ArrowRight", "Next →", "next event", "→"],
  ["nextTurn", "ArrowDown", "Turn ↓", "next turn or trick", "↓"],
  ["last", "End", "Last »", "last step", "»"],
  ["nextRuling", "r", "Next ruling (r)", "next ruling or settlement", "r ⚖"],
];

/** A button's text: the full label, or its short form on a narrow screen (CSS picks one). */
const twoLabels = (long, short) => [el("span", { class: "long" }, long), el("span", { class: "short", "aria-hidden": "true" }, short)];

function drawAll() {
  const players = rep.steps[0].state.players;
  const game = rep.steps[0].state.game;
  const dealPicker = el("select", { id: "deal", onchange: (e) => openDeal(Number(e.target.value)).catch(fail) },
    rep.deals.map((d) => el("option", { value: d, selected: d === rep.deal }, `deal ${d}`)));
  const viewButton = el("button", { type: "button", id: "view", "aria-keyshortcuts": "v", "aria-label": `View: ${viewLabel(rep.view)}`,
    onclick: () => cycleView().catch(fail) },
  twoLabels(`View: ${viewLabel(rep.view)} (v)`, `v: ${rep.view}`));
  const controls = el("div", { class: "controls", role: "toolbar", "aria-label": "Replay controls" },
    KEYS.map(([move, key, text, label, short]) => el("button", {
      type: "button", "data-move": move, "aria-keyshortcuts": key, "aria-label": label,
      onclick: () => go(moves[move]()),
    }, twoLabels(text, short))), viewButton);
  nodes.now = el("p", { class: "now", id: "now", "aria-live": "polite" });
  nodes.table = el("div", { id: "table" });
  nodes.notes = el("div", { id: "notes", "aria-live": "polite" });
  nodes.list = el("ol", {}, rep.steps.map((s) => el("li", { class: s.ruling ? "ruling" : null, dataset: { step: s.step } },
    el("a", { href: stepURL(s.step), onclick: (e) => { e.preventDefault(); go(s.step); } },
      el("span", { class: "n" }, s.step), " ", s.description,
      notes.has(s.event.position)
        ? el("span", { class: "note-mark", title: "annotated at the hearing" }, ` ✎${notes.get(s.event.position).length}`)
        : null))));
  // the moves and the moment shown stay at the top of the screen as the page scrolls
  // (on a phone too, in one row of short buttons); the table below fits a 1280×800 screen
  show(main,
    el("div", { class: "replay-head" },
      el("h1", {}, `Replay · ${gameTitle(game)} · ${matchId}`),
      el("label", { for: "deal" }, "Deal ", dealPicker),
      el("span", { class: "muted players" }, players.join(", "))),
    el("div", { class: "replay-bar" }, controls, nodes.now),
    rep.ended ? null : el("p", { class: "note" }, `Deal ${rep.deal} is still being played: you see ${viewLabel(rep.view)}.`),
    nodes.notes,
    el("div", { class: "replay-body" },
      el("section", { "aria-label": "Table" }, nodes.table),
      el("nav", { class: "events", "aria-label": "Events of this deal" }, el("h2", {}, `Events (${rep.steps.length})`), nodes.list)),
    el("p", { class: "keys" }, "Keys: ", el("kbd", {}, "←"), "/", el("kbd", {}, "→"), " one event · ",
      el("kbd", {}, "↑"), "/", el("kbd", {}, "↓"), " or ", el("kbd", {}, "["), "/", el("kbd", {}, "]"), " one turn or trick · ",
      el("kbd", {}, "Home"), "/", el("kbd", {}, "End"), " · ", el("kbd", {}, "r"), " next ruling or settlement (",
      el("kbd", {}, "R"), " previous) · ", el("kbd", {}, "v"), " all hands / each seat's view"),
  );
  drawStep();
}

function drawStep() {
  const s = rep.steps[k - 1];
  history.replaceState(null, "", stepURL(k));
  document.title = `Replay ${matchId} · deal ${rep.deal} · step ${k} · kartludo`;
  nodes.now.replaceChildren(
    el("span", { class: "where" }, `Deal ${rep.deal} · step ${k} of ${rep.steps.length} · #${s.event.position}`
      + `${s.event.actor ? ` · by ${s.event.actor}` : ""} · ${viewLabel(rep.view)}`),
    el("span", { class: "description" }, s.description),
    s.state.clock ? clocksBar(s.state.clock, s.state.players, { id: "replay-clocks" }).node : null);
  const here = notes.get(s.event.position) || [];
  nodes.notes.replaceChildren(...[
    here.length ? el("ul", { class: "annotations" }, here.map((a) => el("li", {},
      el("strong", {}, a.by), a.role === "td" ? " (TD)" : "", `: ${a.text} `,
      el("a", { href: `/ui/audit/${a.ruling}` }, `hearing of ${a.ruling}`)))) : null,
    token && rulingsHere.length ? commentForm(s) : null,
  ].filter(Boolean));
  try {
    const table = renderTable(s.state, { smallHands: true });
    table.classList.add("t-compact");
    nodes.table.replaceChildren(table);
  } catch (err) {
    nodes.table.replaceChildren(errorBox(err));
  }
  for (const li of nodes.list.children) {
    const current = Number(li.dataset.step) === k;
    li.classList.toggle("current", current);
    const a = li.firstChild;
    if (current) a.setAttribute("aria-current", "step");
    else a.removeAttribute("aria-current");
    if (current) keepInList(li);
  }
}

/** A player of the match (seat token) or a TD comments on the event shown, for the
 * hearing of one of this deal's rulings (stored in the hearing's stream). */
function commentForm(s) {
  const which = el("select", { id: "comment-ruling", "aria-label": "For the hearing of" },
    rulingsHere.map((r) => el("option", { value: `${r.match}/${r.ruling_id}` }, r.id)));
  const text = el("input", { id: "comment-text", size: 40, maxlength: 500, required: true, "aria-label": "Comment" });
  const said = el("span", { role: "status" });
  return el("form", { id: "comment", class: "comment", onsubmit: async (ev) => {
    ev.preventDefault();
    try {
      const a = await api(`/audit/${which.value}/annotations`, { token, method: "POST", body: { event: s.event.position, text: text.value.trim() } });
      const list = notes.get(a.position) || [];
      list.push({ ...a, ruling: which.value });
      notes.set(a.position, list);
      drawAll();
    } catch (err) {
      said.replaceChildren(errorBox(err));
    }
  } }, el("label", {}, `Comment on step ${s.step} for the hearing of `, which), " ", text, " ",
  el("button", { type: "submit" }, "Add"), said);
}

/** Scroll the events list (never the page: a Next must not move what the reader looks
 * at) so the current step shows in it. */
function keepInList(li) {
  const box = li.closest(".events");
  if (!box) return;
  const top = li.offsetTop - box.offsetTop;
  if (top < box.scrollTop + 40) box.scrollTop = Math.max(0, top - 40);
  else if (top + li.offsetHeight > box.scrollTop + box.clientHeight) box.scrollTop = top + li.offsetHeight - box.clientHeight + 8;
}

// --- keys -----------------------------------------------------------------------------
const KEYMAP = {
  ArrowRight: "next", ArrowLeft: "prev", ArrowDown: "nextTurn", ArrowUp: "prevTurn", "]": "nextTurn", "[": "prevTurn",
  Home: "first", End: "last", r: "nextRuling", R: "prevRuling",
};

document.addEventListener("keydown", (e) => {
  if (!rep || e.altKey || e.ctrlKey || e.metaKey) return;
  const tag = (e.target && e.target.tagName) || "";
  if (tag === "INPUT" || tag === "SELECT" || tag === "TEXTAREA") return;
  if (e.key === "v") {
    e.preventDefault();
    cycleView().catch(fail);
    return;
  }
  const move = KEYMAP[e.key];
  if (!move) return;
  e.preventDefault();
  go(moves[move]());
});

function fail(err) {
  main.prepend(errorBox(err));
}

async function start() {
  const deal = params.get("deal") ? Number(params.get("deal")) : null;
  const view = params.get("view");
  try {
    rep = await fetchReplay(deal, view);
  } catch (err) {
    if (!(view && err instanceof ApiError && err.status === 403)) throw err;
    rep = await fetchReplay(deal, null); // a view this token may not see: fall back to its own
  }
  setViews();
  await loadNotes();
  const pos = Number(params.get("pos"));
  const at = pos ? rep.steps.findIndex((s) => s.event.position === pos) + 1 : 0;
  k = at || Math.min(Math.max(Number(params.get("step")) || 1, 1), rep.steps.length);
  drawAll();
}

start().catch((err) => show(main, el("h1", {}, `Replay · ${matchId}`), errorBox(err)));
