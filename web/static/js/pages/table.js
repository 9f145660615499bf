// The live table of one seat: its hand, its legal commands as buttons (cards clickable),
// everyone's public state, kept current from the match's event stream. Everything shown
// comes from the API in this seat's view: nothing hidden from the seat reaches the page.
import { api, el, errorBox, followEvents, gameTitle, page, show, storeToken, takeTokenFromFragment } from "../api.js";
import { cardName } from "../cards.js";
import { renderTable } from "../tables/index.js";

const { main, data } = page();
const matchId = data.match;
let token = takeTokenFromFragment(matchId);
let me = null; // {role, match, seat, player}
let state = null;
let legal = [];
let chosen = null; // a card whose several commands are offered
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

async function submit(text) {
  const [verb, ...args] = text.split(" ");
  nodes.message.replaceChildren();
  setBusy(true);
  try {
    const out = await api(`/matches/${encodeURIComponent(matchId)}/commands`, {
      token, method: "POST", body: { verb, args, command_id: crypto.randomUUID() },
    });
    state = out.state;
    legal = out.legal;
    chosen = null;
    draw();
  } catch (err) {
    nodes.message.replaceChildren(errorBox(err));
  } finally {
    setBusy(false);
  }
}

function setBusy(busy) {
  for (const b of main.querySelectorAll("button[data-command], button.card")) b.disabled = busy;
}

/** A card of this seat's hand is a button when some legal command names it. */
function actionFor(code, player) {
  if (!me || player !== me.player) return null;
  const commands = legal.filter((c) => c.split(" ").slice(1).includes(code));
  if (!commands.length) return null;
  if (commands.length === 1) return { label: commands[0], onClick: () => submit(commands[0]) };
  return {
    label: `${cardName(code)}: ${commands.length} possible commands`,
    onClick: () => {
      chosen = code;
      drawLegal();
      const first = nodes.legal.querySelector("button.chosen");
      if (first) first.focus();
    },
  };
}

function drawLegal() {
  const offered = chosen ? legal.filter((c) => c.split(" ").slice(1).includes(chosen)) : [];
  nodes.legal.replaceChildren(
    ...(legal.length
      ? legal.map((c) => el("button", { type: "button", "data-command": c, class: offered.includes(c) ? "chosen" : null,
          onclick: () => submit(c) }, c))
      : [el("span", { class: "muted" }, me && me.role === "seat" ? "Nothing to do now: waiting for "
        + (state.to_act.length ? state.to_act.join(", ") : "the next deal") + "." : "A TD sees every hand but plays no seat.")]));
}

function draw() {
  nodes.heading.textContent = `${gameTitle(state.game)} · ${matchId}` + (me.player ? ` · ${me.player}` : "");
  nodes.status.textContent = `Deal ${state.deal || "–"} · ${state.phase} · ${state.status.replace("_", " ")}`
    + (state.to_act.length ? ` · to act: ${state.to_act.join(", ")}` : "");
  drawLegal();
  try {
    nodes.table.replaceChildren(renderTable(state, { actionFor, bottom: me.player }));
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
      const fresh = await api(`/matches/${encodeURIComponent(matchId)}/state`, { token });
      if (!state || fresh.version >= state.version) {
        state = fresh;
        legal = fresh.legal || [];
        if (chosen && !legal.some((c) => c.split(" ").slice(1).includes(chosen))) chosen = null;
        draw();
      }
    } catch (err) {
      nodes.message.replaceChildren(errorBox(err));
    }
  }, 60);
}

function addToFeed(event) {
  const text = event.description || event.type;
  nodes.feed.append(el("li", { value: event.version, dataset: { position: event.position } },
    event.actor ? `${text}` : text));
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
  nodes.legal = el("div", { class: "legal", id: "legal", role: "group", "aria-label": "Your legal commands" });
  nodes.table = el("div", { id: "table" });
  nodes.feed = el("ol", { id: "feed" });
  show(main,
    el("div", { class: "live-head" }, nodes.heading, nodes.connection,
      el("a", { href: `/ui/replay/${matchId}` }, "replay"),
      el("button", { type: "button", onclick: () => { storeToken(matchId, null); token = null; start(); } }, "Leave seat")),
    nodes.status,
    el("h2", {}, me.role === "seat" ? "Your move" : "Commands"),
    nodes.legal,
    nodes.message,
    el("section", { "aria-label": "Table" }, nodes.table),
    el("h2", {}, "What happened"),
    el("div", { class: "feed" }, nodes.feed),
  );
  const fresh = await api(`/matches/${encodeURIComponent(matchId)}/state`, { token });
  state = fresh;
  legal = fresh.legal || [];
  draw();
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
