// The live table of one seat: the table round the centre (own seat at the bottom), and
// docked at the foot of the screen the own hand and the moves the rules allow now. The
// player selects cards (tap to select, tap again to drop) and confirms one move; a move
// that ends the deal or is a foul by what the player can see asks first. Everything shown
// comes from the API in this seat's view: nothing hidden from the seat reaches the page.
import { api, el, errorBox, followEvents, gameTitle, page, ruleLink, show, storeToken, takeTokenFromFragment } from "../api.js";
import { renderTable } from "../tables/index.js";
import { phaseText } from "../tables/common.js";
import { controls, handRow, MAX_CONTROLS, selectionLimit, verbLabel } from "../tables/actions.js";

const { main, data } = page();
const matchId = data.match;
let token = takeTokenFromFragment(matchId);
let me = null; // {role, match, seat, player}
let state = null;
let shapes = [];
let cautions = {};
let picked = []; // indices into the own hand, in selection order
let sides = []; // face up/down per selected card (a Hakamo lay)
let asking = null; // the command waiting for a confirmation
let stop = null;
const nodes = {};

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
  nodes.message.replaceChildren();
  setBusy(true);
  try {
    const out = await api(`/matches/${encodeURIComponent(matchId)}/commands`, {
      token, method: "POST", body: { verb, args, command_id: crypto.randomUUID() },
    });
    take(out.state, out.shapes || [], out.cautions || {});
  } catch (err) {
    nodes.message.replaceChildren(errorBox(err));
  } finally {
    setBusy(false);
  }
}

function setBusy(busy) {
  for (const b of main.querySelectorAll("#dock button")) b.disabled = busy || b.dataset.off === "1";
}

function take(fresh, freshShapes, freshCautions) {
  // never step back: a slow command response may land after a refresh that saw later events
  if (state && fresh.version < state.version) return;
  const sameHand = state && JSON.stringify(hand()) === JSON.stringify(((fresh.hands || {})[me.player]) || []);
  const sameShapes = JSON.stringify(shapes) === JSON.stringify(freshShapes);
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

function waitingText() {
  if (!me || me.role !== "seat") return "A TD sees every hand but plays no seat.";
  if (state.status === "finished") return "The match is over.";
  if (state.to_act.length) return `Waiting for ${state.to_act.join(", ")}.`;
  return "The deal is over: waiting for the next deal.";
}

function drawDock() {
  const mine = hand();
  const parts = [];
  let used = 0;
  if (me && me.role === "seat") {
    const row = handRow(mine, shapes, picked, toggle, me.player);
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
  nodes.dock.replaceChildren(...parts, nodes.message);
  nodes.dock.dataset.version = String(state.version);
  for (const b of nodes.dock.querySelectorAll("button:disabled")) b.dataset.off = "1";
}

function statusText() {
  const bits = [`Deal ${state.deal || "–"}`, phaseText(state.phase)];
  if (state.status === "finished") bits.push("match over");
  if (state.to_act.length) bits.push(`to act: ${state.to_act.join(", ")}`);
  return bits.join(" · ");
}

function draw() {
  nodes.heading.textContent = `${gameTitle(state.game)} · ${matchId}` + (me.player ? ` · ${me.player}` : "");
  nodes.status.textContent = statusText();
  drawDock();
  try {
    nodes.table.replaceChildren(renderTable(state, { bottom: me.player, smallHands: true }));
  } catch (err) {
    nodes.table.replaceChildren(errorBox(err));
  }
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
  nodes.heading = el("h1", {});
  nodes.status = el("p", { id: "status", "aria-live": "polite" });
  nodes.connection = el("span", { class: "connection", id: "connection" }, "connecting…");
  nodes.message = el("div", { id: "message", "aria-live": "assertive" });
  nodes.dock = el("section", { class: "dock", id: "dock", "aria-label": me.role === "seat" ? "Your hand and moves" : "Commands" });
  nodes.table = el("div", { id: "table" });
  nodes.feed = el("ol", { id: "feed" });
  show(main,
    el("div", { class: "live-head" }, nodes.heading, nodes.connection,
      el("a", { href: `/ui/replay/${matchId}` }, "replay"),
      me.role === "td" ? el("a", { href: `/ui/td/${matchId}` }, "TD page") : null,
      el("button", { type: "button", onclick: () => { storeToken(matchId, null); token = null; start(); } }, "Leave seat")),
    nodes.status,
    el("section", { "aria-label": "Table", class: "live-table" }, nodes.table),
    nodes.dock,
    el("h2", {}, "What happened"),
    el("div", { class: "feed" }, nodes.feed),
  );
  const fresh = await api(`/matches/${encodeURIComponent(matchId)}/state?legal=shapes`, { token });
  take(fresh, fresh.shapes || [], fresh.cautions || {});
  stop = followEvents(matchId, {
    token,
    onEvent: (event) => {
      addToFeed(event);
      if (event.version > state.version) refreshSoon();
    },
    onState: (s) => { nodes.connection.textContent = s; },
  });
}

start().catch((err) => show(main, el("h1", {}, `Table · ${matchId}`), errorBox(err)));
