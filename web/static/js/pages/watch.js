// A match's public watch page (/ui/watch/MATCH): the table read-only, as anyone without a
// token sees it. When the TD has set a watch delay the server gives this page the table as
// it stood that long ago (k moves, or so many seconds), never closer to live, and its live
// stream holds every event back until the delay has passed it: nothing here is computed
// or hidden in the browser. With "watch hands" the delayed view shows every hand.
import { api, el, errorBox, followEvents, gameTitle, page, show } from "../api.js";
import { renderTable } from "../tables/index.js";
import { phaseText } from "../tables/common.js";

const { main, data } = page();
const matchId = data.match;
let state = null;
const nodes = {};

function delayText(watch) {
  if (!watch || watch.delay === "live") return "Live";
  const hands = watch.hands ? " · every hand shown (delayed)" : "";
  return `Delayed by ${watch.delay}${hands}`;
}

function statusText() {
  if (state.status === "finished") return `Deal ${state.deal || "–"} · match over`;
  const bits = [`Deal ${state.deal || "–"}`, phaseText(state.phase)];
  if (state.to_act && state.to_act.length) bits.push(`to act: ${state.to_act.join(", ")}`);
  return bits.join(" · ");
}

function draw() {
  nodes.heading.textContent = `${gameTitle(state.game)} · ${matchId} · watching`;
  nodes.delay.textContent = state.status === "finished" ? "The match is over: everything is shown" : delayText(state.watch);
  nodes.delay.classList.toggle("delayed", !!(state.watch && state.watch.delay !== "live"));
  nodes.status.textContent = statusText();
  nodes.table.dataset.version = String(state.version);
  document.title = `Watching ${gameTitle(state.game)} ${matchId} · kartludo`;
  try {
    nodes.table.replaceChildren(renderTable(state, { smallHands: true }));
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
      const fresh = await api(`/matches/${encodeURIComponent(matchId)}/state`);
      if (!state || fresh.version >= state.version) {
        state = fresh;
        draw();
      }
    } catch (err) {
      nodes.message.replaceChildren(errorBox(err));
    }
  }, 60);
}

function addToFeed(event) {
  nodes.feed.append(el("li", { value: event.version, dataset: { position: event.position, version: event.version } },
    event.description || event.type));
  while (nodes.feed.children.length > 200) nodes.feed.firstChild.remove();
  nodes.feed.parentElement.scrollTop = nodes.feed.parentElement.scrollHeight;
}

async function start() {
  nodes.heading = el("h1", {});
  nodes.delay = el("p", { id: "watch-delay", class: "watch-delay", "aria-live": "polite" });
  nodes.status = el("p", { id: "status", "aria-live": "polite" });
  nodes.connection = el("span", { class: "connection", id: "connection" }, "connecting…");
  nodes.message = el("div", { id: "message", "aria-live": "assertive" });
  nodes.table = el("div", { id: "table" });
  nodes.feed = el("ol", { id: "feed" });
  show(main,
    el("div", { class: "live-head" }, nodes.heading, nodes.connection,
      el("a", { href: `/ui/replay/${matchId}` }, "replay"),
      el("a", { href: `/ui/audit?match=${encodeURIComponent(matchId)}` }, "rulings")),
    nodes.delay,
    nodes.status,
    nodes.message,
    el("section", { "aria-label": "Table", class: "live-table watch-table" }, nodes.table),
    el("h2", {}, "What happened"),
    el("div", { class: "feed" }, nodes.feed),
  );
  state = await api(`/matches/${encodeURIComponent(matchId)}/state`);
  draw();
  followEvents(matchId, {
    onEvent: (event) => {
      addToFeed(event);
      if (event.version > state.version) refreshSoon();
    },
    // the stream is up: "following", not "live", beside a "Delayed by …" badge
    onState: (s) => { nodes.connection.textContent = s === "live" ? "following" : s; },
  });
}

start().catch((err) => show(main, el("h1", {}, `Watching · ${matchId}`), errorBox(err)));
