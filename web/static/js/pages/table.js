// The live table of one seat: the table round the centre (own seat at the bottom), and
// docked at the foot of the screen the own hand and the moves the rules allow now. A card
// whose move is unambiguous (the only verb that takes it takes that one card: a trick
// play, a discard) is played by one click or by dragging it onto the table; otherwise
// the player selects cards (tap to select, tap again to drop) and confirms one move. A
// move that ends the deal or is a foul by what the player can see asks first. The tab's
// title (and, when switched on, a short sound) says when it is the seat's turn, and
// keyboard focus stays in the hand after a move. Everything shown comes from the API in
// this seat's view: nothing hidden from the seat reaches the page.
//
// A duplicate board (``state.board``) says which board it is. When it ends the page shows
// its traveller once every table has played it (till then, that it waits for them), and
// a duplicate player's token (one for every board of the event) moves on to the player's
// next board (``/duplicates/{id}/me``).
import { api, el, errorBox, followEvents, gameTitle, page, ruleLink, show, storeToken, takeTokenFromFragment } from "../api.js";
import { renderTable } from "../tables/index.js";
import { phaseText } from "../tables/common.js";
import { controls, handRow, MAX_CONTROLS, selectionLimit, verbLabel } from "../tables/actions.js";
import { termLink, VERB_TERMS } from "../terms.js";
import { clocksBar } from "../clock.js";

const { main, data } = page();
const matchId = data.match;
let token = takeTokenFromFragment(matchId);
let me = null; // {role, match, seat, player}; a duplicate player's token plays as a seat (``duplicatePlayer``)
let state = null;
let shapes = [];
let cautions = {};
let picked = []; // indices into the own hand, in selection order
let sides = []; // face up/down per selected card (a Hakamo lay)
let asking = null; // the command waiting for a confirmation
let stop = null;
let dragging = null; // the command of the card being dragged onto the table
let handFocus = 0; // the hand card the player last used (focus returns near it after a move)
let restoreFocus = false; // a move was sent from the dock: focus goes back to the hand
let wasMyTurn = false;
const nodes = {};
const SOUND_KEY = "kartludo-sound";
let audio = null;

function askForToken(message) {
  const input = el("input", { type: "password", id: "token", name: "token", autocomplete: "off", required: true,
    size: 40, "aria-describedby": "token-help" });
  show(main,
    el("h1", {}, `Table · ${matchId}`),
    message ? el("p", { class: "error", role: "alert" }, message) : null,
    el("p", { id: "token-help" }, "Open your seat with the secret seat token you were given when the match was created. ",
      "It stays in this browser tab and is sent only to this server."),
    el("form", { class: "token", onsubmit: (e) => {
      e.preventDefault();
      token = input.value.trim();
      storeToken(matchId, token);
      start();
    } }, el("label", { for: "token" }, "Seat token ", input), el("button", { type: "submit", class: "primary" }, "Open seat")));
  input.focus();
}

function hand() {
  return (me && me.player && Array.isArray((state.hands || {})[me.player])) ? state.hands[me.player] : [];
}

function pickedCodes() {
  const h = hand();
  return picked.map((i) => h[i]).filter((c) => c !== undefined);
}

/** Whether this seat is to act now. */
function myTurn() {
  return !!(me && me.role === "seat" && state && state.status !== "finished" && (state.to_act || []).includes(me.player));
}

function soundOn() {
  return localStorage.getItem(SOUND_KEY) === "1";
}

/** A short two-note chime (Web Audio: no file to fetch), only when switched on. */
function chime() {
  if (!soundOn()) return;
  try {
    audio = audio || new AudioContext();
    const t = audio.currentTime;
    for (const [i, freq] of [[0, 660], [1, 880]]) {
      const osc = audio.createOscillator();
      const gain = audio.createGain();
      osc.frequency.value = freq;
      gain.gain.setValueAtTime(0.0001, t + i * 0.14);
      gain.gain.exponentialRampToValueAtTime(0.2, t + i * 0.14 + 0.02);
      gain.gain.exponentialRampToValueAtTime(0.0001, t + i * 0.14 + 0.13);
      osc.connect(gain).connect(audio.destination);
      osc.start(t + i * 0.14);
      osc.stop(t + i * 0.14 + 0.14);
    }
  } catch {
    // no audio here: the title still says it
  }
}

function soundToggle() {
  const box = el("input", { type: "checkbox", id: "sound", checked: soundOn(), onchange: (e) => {
    localStorage.setItem(SOUND_KEY, e.target.checked ? "1" : "0");
    if (e.target.checked) {
      try {
        audio = audio || new AudioContext(); // made in the click: the browser lets it sound later
        audio.resume();
      } catch {
        // no audio here
      }
    }
  } });
  return el("label", { class: "sound", for: "sound" }, box, " Sound on my turn");
}

/** The tab's title: "▶ Your turn" first while this seat is to act. */
function setTitle() {
  const who = me && me.player ? ` · ${me.player}` : "";
  const base = `${gameTitle(state.game)} ${matchId}${who} · kartludo`;
  document.title = myTurn() ? `▶ Your turn · ${base}` : state.status === "finished" ? `Match over · ${base}` : base;
}

/** A click on hand card i: an unambiguous move is made at once, else the card is selected. */
function clickCard(i) {
  handFocus = i;
  const card = nodes.dock.querySelector(`.dock-hand [data-index="${i}"]`);
  const direct = card && card.dataset.command;
  if (direct) {
    restoreFocus = true;
    submit(direct);
    return;
  }
  toggle(i);
}

/** A command with a caution asks first; others go straight away. */
function submit(text) {
  if (cautions[text] && asking !== text) {
    asking = text;
    drawDock();
    const yes = nodes.dock.querySelector("button[data-confirm]");
    if (yes) yes.focus();
    return;
  }
  asking = null;
  send(text);
}

async function send(text) {
  const [verb, ...args] = text.split(" ");
  if (nodes.dock.contains(document.activeElement)) restoreFocus = true;
  nodes.message.replaceChildren();
  setBusy(true);
  try {
    const out = await api(`/matches/${encodeURIComponent(matchId)}/commands`, {
      token, method: "POST", body: { verb, args, command_id: crypto.randomUUID() },
    });
    take(out.state, out.shapes || [], out.cautions || {});
  } catch (err) {
    nodes.message.replaceChildren(errorBox(err));
    if (restoreFocus) focusHand();
  } finally {
    setBusy(false);
  }
}

function setBusy(busy) {
  for (const b of main.querySelectorAll("#dock button")) b.disabled = busy || b.dataset.off === "1";
}

let stopClocks = () => {};
let clockPoll = null;
const CLOCK_POLL_MS = 10000; // a TD's extra time or pause reaches the page within this

/** The clocks bar from the server's latest figures (the seat to act ticking from them). */
function drawClocks(clock) {
  stopClocks();
  stopClocks = () => {};
  if (!clock || !state) {
    nodes.clocks.replaceChildren();
    nodes.clocks.hidden = true;
    return;
  }
  const bar = clocksBar(clock, state.players, { me: me && me.player, live: state.status !== "finished" });
  stopClocks = bar.stop;
  nodes.clocks.hidden = false;
  nodes.clocks.replaceChildren(bar.node);
  if (clockPoll && state.status === "finished") { // the clocks have stopped for good
    clearInterval(clockPoll);
    clockPoll = null;
  }
  if (!clockPoll && state.status !== "finished") {
    clockPoll = setInterval(async () => {
      try {
        const fresh = await api(`/matches/${encodeURIComponent(matchId)}/clock`, { token });
        if (state) { state.clock = fresh; drawClocks(fresh); }
      } catch {
        // the next poll or state tries again
      }
    }, CLOCK_POLL_MS);
  }
}

function take(fresh, freshShapes, freshCautions) {
  // never step back: a slow command response may land after a refresh that saw later events
  if (state && fresh.version < state.version) return;
  if (state && fresh.clock && fresh.version === state.version) { // the same moment, the clocks' newer figures
    state.clock = fresh.clock;
    drawClocks(fresh.clock);
  }
  const sameHand = state && JSON.stringify(hand()) === JSON.stringify(((fresh.hands || {})[me.player]) || []);
  const sameShapes = JSON.stringify(shapes) === JSON.stringify(freshShapes);
  // the same moment again (a refresh the live stream asked for, answered after the command's
  // own answer): nothing to redraw, and redrawing would swallow a click or a drag under way
  if (state && fresh.version === state.version && sameHand && sameShapes) {
    if (typeof fresh.watchers === "number") nodes.watchers.textContent = `${fresh.watchers} watching`;
    return;
  }
  state = fresh;
  shapes = freshShapes;
  cautions = freshCautions;
  if (!sameHand || !sameShapes) {
    picked = [];
    sides = [];
    asking = null;
  }
  draw();
}

function toggle(i) {
  const at = picked.indexOf(i);
  if (at >= 0) {
    picked.splice(at, 1);
    sides.splice(at, 1);
  } else if (selectionLimit(shapes) <= 1) {
    picked = [i];
    sides = [];
  } else if (picked.length < selectionLimit(shapes)) {
    picked.push(i);
  }
  asking = null;
  drawDock();
  const again = nodes.dock.querySelectorAll(".dock-hand [data-card]")[i];
  if (again && again.focus) again.focus();
}

/** "ann wins the match", "ann and bob share first place", from ``state.result``. */
function winnerText() {
  const r = state.result;
  const w = (r && r.winners) || [];
  if (!w.length) return "";
  if (state.board) return `${w.join(" and ")} ${w.length === 1 ? "has" : "share"} this table's best score`;
  return w.length === 1 ? `${w[0]} wins the match` : `${w.join(" and ")} share first place`;
}

function waitingText() {
  if (!me || me.role !== "seat") return "A TD sees every hand but plays no seat.";
  if (state.status === "finished" && state.board) return `Board ${state.board.board} is over.`;
  if (state.status === "finished") return `The match is over${winnerText() ? `: ${winnerText()}` : ""}.`;
  if (state.to_act.length) return `Waiting for ${state.to_act.join(", ")}.`;
  return "The deal is over: waiting for the next deal.";
}

/** What has focus in the dock, to find it again after a redraw: a hand card's index, or a control's id or command. */
function focusKey() {
  const a = document.activeElement;
  if (!a || !nodes.dock.contains(a)) return null;
  if (a.dataset && a.dataset.index !== undefined && a.closest(".dock-hand")) return { index: Number(a.dataset.index) };
  return { id: a.id || null, command: (a.dataset && a.dataset.command) || null };
}

/** Focus a card of the own hand: the one at ``i`` (or the nearest before it), a card that can be played first. */
function focusHand(i = handFocus) {
  const row = nodes.dock.querySelector(".dock-hand");
  if (!row) return;
  const cards = [...row.querySelectorAll("button[data-card]:not(:disabled)")];
  const near = cards.filter((c) => Number(c.dataset.index) <= i).pop() || cards[0];
  (near || row).focus({ preventScroll: true });
}

function restore(key) {
  if (restoreFocus) {
    restoreFocus = false;
    focusHand();
    return;
  }
  if (!key) return;
  if (key.index !== undefined) {
    focusHand(key.index);
    return;
  }
  const same = (key.id && nodes.dock.querySelector(`#${CSS.escape(key.id)}`))
    || (key.command && nodes.dock.querySelector(`[data-command="${CSS.escape(key.command)}"]`));
  if (same) same.focus({ preventScroll: true });
  else focusHand();
}

/** Links to the rules of the game words among the moves offered (Munt, Levu, Kasxetoj, …). */
function verbTerms() {
  const words = VERB_TERMS[state.game] || {};
  const seen = [...new Set(shapes.map((s) => words[s.verb]).filter(Boolean))];
  if (!seen.length) return null;
  return el("p", { class: "muted terms", id: "move-terms" }, "Rules: ",
    seen.flatMap((w, i) => [i ? " · " : "", termLink(state.game, w, w.charAt(0).toUpperCase() + w.slice(1))]));
}

function drawDock() {
  const key = focusKey();
  const mine = hand();
  const parts = [];
  let used = 0;
  const turn = myTurn();
  nodes.dock.classList.toggle("my-turn", turn);
  if (turn) parts.push(el("p", { class: "turn-cue", id: "turn-cue" }, el("strong", {}, "Your turn")));
  if (me && me.role === "seat") {
    const row = handRow(mine, shapes, picked, clickCard, me.player, (command) => {
      dragging = command;
      nodes.tableBox.classList.toggle("drop-ready", !!command);
      if (!command && redrawAfterDrag) {
        redrawAfterDrag = false;
        draw();
      }
    });
    used += row.count;
    parts.push(row.node);
  }
  if (asking) {
    const c = cautions[asking];
    parts.push(el("div", { class: "caution", role: "alertdialog", "aria-labelledby": "caution-text" },
      el("p", { id: "caution-text" }, c.text, " (", ruleLink(c.rule), ")"),
      el("div", { class: "legal" },
        el("button", { type: "button", class: "primary", "data-confirm": asking, onclick: () => submit(asking) },
          `Yes: ${verbLabel(asking.split(" ")[0])}`),
        el("button", { type: "button", onclick: () => { asking = null; drawDock(); } }, "Cancel"))));
  } else if (shapes.length) {
    const moves = controls(shapes, { state, picked: pickedCodes(), submit, budget: MAX_CONTROLS - used, sides,
      onSide: (i, s) => { sides[i] = s; drawDock(); } });
    parts.push(moves.node);
  } else {
    parts.push(el("p", { class: "muted waiting", id: "legal" }, waitingText()));
  }
  if (shapes.length && !asking) parts.push(verbTerms());
  nodes.dock.replaceChildren(...parts.filter(Boolean), nodes.message);
  nodes.dock.dataset.version = String(state.version);
  for (const b of nodes.dock.querySelectorAll("button:disabled")) b.dataset.off = "1";
  if (!asking) restore(key);
}

function statusText() {
  if (state.status === "finished" && state.board) return `Board ${state.board.board} · played`;
  if (state.status === "finished") {
    return [`Deal ${state.deal || "–"}`, "match over", winnerText()].filter(Boolean).join(" · ");
  }
  const bits = [`Deal ${state.deal || "–"}`, phaseText(state.phase)];
  if (state.to_act.length) bits.push(`to act: ${state.to_act.join(", ")}`);
  return bits.join(" · ");
}

let redrawAfterDrag = false; // a redraw held back while a card is being dragged (it would cancel the drag)

function draw() {
  if (dragging) {
    redrawAfterDrag = true;
    return;
  }
  nodes.heading.textContent = `${gameTitle(state.game)} · ${matchId}` + (me.player ? ` · ${me.player}` : "");
  drawBoardLine();
  nodes.status.textContent = statusText();
  drawClocks(state.clock);
  if (typeof state.watchers === "number") {
    nodes.watchers.textContent = `${state.watchers} watching`;
    nodes.watchers.title = "Watchers of the public watch link";
  }
  const turn = myTurn();
  if (turn && !wasMyTurn) chime();
  wasMyTurn = turn;
  setTitle();
  drawDock();
  try {
    nodes.table.replaceChildren(renderTable(state, { bottom: me.player, smallHands: true }));
  } catch (err) {
    nodes.table.replaceChildren(errorBox(err));
  }
  if (state.board && state.status === "finished") afterBoard();
}

// --- a duplicate board ------------------------------------------------------------------
const TRAVELLER_POLL_MS = 3000;
const MOVE_ON_SECONDS = 20;
let afterStarted = false;
let nextBoard = null; // the player's board now, when it is not this one: {board, match}
let moveOnTimer = null;
let moveOnLeft = 0;
let stayed = false;

/** "Board k of B · duplicate ID · table t", linking to the event's page. */
function drawBoardLine() {
  const b = state.board;
  if (!b) {
    nodes.board.replaceChildren();
    nodes.board.hidden = true;
    return;
  }
  nodes.board.hidden = false;
  nodes.board.replaceChildren(el("strong", {}, `Board ${b.board} of ${b.boards}`), " · duplicate ",
    el("a", { href: `/ui/duplicate/${encodeURIComponent(b.duplicate)}` }, b.duplicate), ` · table ${b.table}`);
}

/** The board has ended here: its traveller (or that it waits for the other tables), and the player's next board. */
function afterBoard() {
  if (afterStarted) return;
  afterStarted = true;
  nodes.after.hidden = false;
  nodes.after.replaceChildren(el("h2", { id: "after-heading" }, `Board ${state.board.board}: result`),
    nodes.traveller, nodes.next);
  loadTraveller();
  if (me.duplicatePlayer) findNextBoard();
}

async function loadTraveller() {
  const b = state.board;
  try {
    const t = await api(`/duplicates/${encodeURIComponent(b.duplicate)}/boards/${b.board}`, { token });
    nodes.traveller.replaceChildren(travellerTable(t));
  } catch (err) {
    if (err.status === 403) { // still to be played at another table: asked again in a moment
      nodes.traveller.replaceChildren(el("p", { class: "note", id: "traveller-waiting" },
        `Waiting for the other tables to play board ${b.board}: its traveller shows here once every table has played it. `,
        el("span", { class: "muted" }, `(${err.message})`)));
      setTimeout(loadTraveller, TRAVELLER_POLL_MS);
    } else {
      nodes.traveller.replaceChildren(errorBox(err));
    }
  }
}

/** Every table's result on the board, seat by seat, this table's rows marked. */
function travellerTable(t) {
  const better = t.higher_is_better ? "higher" : "lower";
  const rows = t.tables.flatMap((tr) => tr.results.map((r) => ({ table: tr.table, match: tr.match, ...r })));
  const mine = (r) => r.match === matchId;
  return el("div", { id: "traveller" },
    el("div", { class: "scroll" }, el("table", { class: "data traveller" },
      el("caption", {}, `Board ${t.board} at every table (score: the game's own total, ${better} is better; `,
        "matchpoints: 2 per table beaten at that seat, 1 per tie)"),
      el("thead", {}, el("tr", {}, ["table", "seat", "player", "score", "MP", "%", "±"].map((h, i) =>
        el("th", { scope: "col", class: i >= 3 ? "num" : null }, h)))),
      el("tbody", {}, rows.map((r) => el("tr", { class: mine(r) ? "mine" : null, dataset: { table: r.table, player: r.player } },
        el("td", {}, r.table), el("td", {}, r.seat), el("th", { scope: "row" }, r.player),
        el("td", { class: "num" }, r.score), el("td", { class: "num" }, `${r.matchpoints}/${r.top}`),
        el("td", { class: "num" }, r.percentage.toFixed(1)), el("td", { class: "num" }, r.difference.toFixed(2))))))),
    t.deck ? el("p", { class: "muted deck-line" }, `Deck (top first): ${t.deck.join(" ")}`) : null);
}

/** A duplicate player's board now: when it is another than this, a link to it (followed by itself after a while). */
async function findNextBoard() {
  const b = state.board;
  let where;
  try {
    where = await api(`/duplicates/${encodeURIComponent(b.duplicate)}/me`, { token });
  } catch (err) {
    nodes.next.replaceChildren(errorBox(err));
    return;
  }
  if (where.match === matchId) {
    nodes.next.replaceChildren(el("p", { class: "muted", id: "next-board" },
      where.board === where.boards ? "That was the event's last board at your table." : "Your next board starts in a moment."),
    el("p", {}, el("a", { href: `/ui/duplicate/${encodeURIComponent(b.duplicate)}` }, "The event's progress and standings")));
    if (where.board !== where.boards) setTimeout(findNextBoard, TRAVELLER_POLL_MS);
    return;
  }
  nextBoard = where;
  const go = () => moveOn();
  moveOnLeft = MOVE_ON_SECONDS;
  nodes.countdown = el("span", { class: "muted", id: "move-on" });
  nodes.next.replaceChildren(el("div", { class: "legal", id: "next-board" },
    el("button", { type: "button", class: "primary", id: "next-board-go", onclick: go }, `Play board ${where.board} →`),
    nodes.countdown,
    el("button", { type: "button", id: "stay", onclick: () => { stayed = true; clearInterval(moveOnTimer); nodes.countdown.textContent = ""; } }, "Stay here")));
  if (!stayed) {
    tick();
    moveOnTimer = setInterval(tick, 1000);
  }
}

function tick() {
  if (moveOnLeft <= 0) {
    clearInterval(moveOnTimer);
    moveOn();
    return;
  }
  nodes.countdown.textContent = `moving on to board ${nextBoard.board} in ${moveOnLeft} s`;
  moveOnLeft -= 1;
}

/** The player's next board, with the same token (kept in this tab for that match). */
function moveOn() {
  if (!nextBoard) return;
  storeToken(nextBoard.match, token);
  location.assign(`/ui/table/${encodeURIComponent(nextBoard.match)}`);
}

let refreshing = null;
function refreshSoon() {
  if (refreshing) return;
  refreshing = setTimeout(async () => {
    refreshing = null;
    try {
      const fresh = await api(`/matches/${encodeURIComponent(matchId)}/state?legal=shapes`, { token });
      take(fresh, fresh.shapes || [], fresh.cautions || {});
    } catch (err) {
      nodes.message.replaceChildren(errorBox(err));
    }
  }, 60);
}

function addToFeed(event) {
  nodes.feed.append(el("li", { value: event.version, dataset: { position: event.position } }, event.description || event.type));
  while (nodes.feed.children.length > 200) nodes.feed.firstChild.remove();
  nodes.feed.parentElement.scrollTop = nodes.feed.parentElement.scrollHeight;
}

async function start() {
  if (stop) stop();
  if (!token) {
    askForToken(null);
    return;
  }
  try {
    me = await api("/me", { token });
  } catch (err) {
    storeToken(matchId, null);
    token = null;
    askForToken(err.status === 401 ? "That token is unknown or revoked." : err.message);
    return;
  }
  if (me.role === "seat" && me.match !== matchId) {
    askForToken(`That is a seat token of match ${me.match}, not of ${matchId}.`);
    return;
  }
  let first = null;
  if (me.role === "player") { // a duplicate player's token: a seat of this match when it is a board the player sits at
    first = await api(`/matches/${encodeURIComponent(matchId)}/state?legal=shapes`, { token }).catch(() => null);
    const ours = first && first.board && (first.players || []).includes(me.label)
      && await api(`/duplicates/${encodeURIComponent(first.board.duplicate)}/me`, { token }).then(() => true, () => false);
    if (!ours) {
      storeToken(matchId, null);
      token = null;
      askForToken(`That is the duplicate player token of ${me.label}, who plays no seat in ${matchId}.`);
      return;
    }
    me = { ...me, role: "seat", match: matchId, seat: first.players.indexOf(me.label), player: me.label, duplicatePlayer: true };
  }
  nodes.heading = el("h1", {});
  nodes.board = el("p", { id: "board-line", class: "board-line", hidden: true });
  nodes.after = el("section", { id: "after-board", class: "after-board", "aria-labelledby": "after-heading", hidden: true });
  nodes.traveller = el("div", { "aria-live": "polite" });
  nodes.next = el("div", {});
  nodes.status = el("p", { id: "status", "aria-live": "polite" });
  nodes.clocks = el("div", { id: "clocks-box", hidden: true });
  nodes.connection = el("span", { class: "connection", id: "connection" }, "connecting…");
  nodes.watchers = el("a", { class: "watchers", id: "watchers", href: `/ui/watch/${encodeURIComponent(matchId)}` });
  nodes.message = el("div", { id: "message", "aria-live": "assertive" });
  nodes.dock = el("section", { class: "dock", id: "dock", "aria-label": me.role === "seat" ? "Your hand and moves" : "Commands" });
  nodes.table = el("div", { id: "table" });
  nodes.feed = el("ol", { id: "feed" });
  // a card whose move is unambiguous may be dragged from the hand onto the table
  nodes.tableBox = el("section", { "aria-label": "Table", class: "live-table", id: "drop",
    ondragover: (e) => {
      if (!dragging) return;
      e.preventDefault();
      e.dataTransfer.dropEffect = "move";
    },
    ondrop: (e) => {
      if (!dragging) return;
      e.preventDefault();
      const command = dragging;
      dragging = null;
      nodes.tableBox.classList.remove("drop-ready");
      if (redrawAfterDrag) { // what arrived during the drag, then the move
        redrawAfterDrag = false;
        draw();
      }
      restoreFocus = true;
      submit(command);
    } }, nodes.table);
  show(main,
    el("div", { class: "live-head" }, nodes.heading, nodes.connection, nodes.watchers,
      me.role === "seat" ? soundToggle() : null,
      el("a", { href: `/ui/replay/${matchId}` }, "replay"),
      el("a", { href: `/ui/audit?match=${encodeURIComponent(matchId)}`, id: "rulings-link" }, "rulings"),
      me.role === "td" ? el("a", { href: `/ui/td/${matchId}` }, "TD page") : null,
      el("button", { type: "button", onclick: () => { storeToken(matchId, null); token = null; start(); } }, "Leave seat")),
    nodes.board,
    nodes.status,
    nodes.clocks,
    nodes.after,
    nodes.tableBox,
    nodes.dock,
    el("h2", {}, "What happened"),
    el("div", { class: "feed" }, nodes.feed),
  );
  const fresh = first || await api(`/matches/${encodeURIComponent(matchId)}/state?legal=shapes`, { token });
  take(fresh, fresh.shapes || [], fresh.cautions || {});
  stop = followEvents(matchId, {
    token,
    onEvent: (event) => {
      addToFeed(event);
      if (event.version > state.version) refreshSoon();
    },
    onState: (s) => { nodes.connection.textContent = s; },
  });
  // the watchers come and go without an event: their count is asked for now and then
  if (!watcherPoll) watcherPoll = setInterval(() => { if (state) refreshSoon(); }, WATCHERS_POLL_MS);
}

const WATCHERS_POLL_MS = 10000;
let watcherPoll = null;

start().catch((err) => show(main, el("h1", {}, `Table · ${matchId}`), errorBox(err)));
