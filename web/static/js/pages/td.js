// The TD's page of one match: the table with every hand (the TD's view), Deal next when
// a deal may start, whether the match deals by itself, the match's clocks (with the TD's
// pause, resume and extra time) and the match's rulings. Needs a TD token (kept in this
// tab only, like a seat's).
import {
  api, askForTdToken, el, errorBox, followEvents, gameTitle, page, ruleLink, show, storeToken, takeTokenFromFragment, TD_SCOPE,
  tdHolder,
} from "../api.js";
import { renderTable } from "../tables/index.js";
import { phaseText } from "../tables/common.js";
import { clocksBar } from "../clock.js";

const { main, data } = page();
const matchId = data.match;
let token = takeTokenFromFragment(TD_SCOPE);
let stop = null;
const nodes = {};

function askForToken(message) {
  askForTdToken(main, { title: `TD · ${matchId}`, message, intro: "This page needs a TD token.",
    onToken: (typed) => { token = typed; start(); } });
}

async function dealNext() {
  nodes.message.replaceChildren();
  nodes.deal.disabled = true;
  try {
    await api(`/matches/${encodeURIComponent(matchId)}/deals`, { token, method: "POST", body: { command_id: crypto.randomUUID() } });
    await refresh();
  } catch (err) {
    nodes.message.replaceChildren(errorBox(err));
    await refresh();
  }
}

let stopClocks = () => {};
let clockReason = ""; // kept while the page redraws on each event

/** The clocks, ticking, and the TD's controls: pause or resume, extra time for a seat (each with a reason). */
function drawClocks(state) {
  stopClocks();
  stopClocks = () => {};
  if (!state.clock) {
    nodes.clocks.replaceChildren();
    return;
  }
  const bar = clocksBar(state.clock, state.players, { live: state.status !== "finished" });
  stopClocks = bar.stop;
  const id = encodeURIComponent(matchId);
  const reason = el("input", { id: "clock-reason", size: 24, maxlength: 2000, required: true, "aria-label": "Reason",
    value: clockReason, oninput: (e) => { clockReason = e.target.value; } });
  const seat = el("select", { id: "clock-seat", "aria-label": "Seat" }, state.players.map((p) => el("option", { value: p }, p)));
  const time = el("input", { id: "clock-time", size: 5, value: "60s", required: true, "aria-label": "Extra time (60s, 2m)" });
  const send = async (path, body) => {
    nodes.message.replaceChildren();
    if (!reason.value.trim()) {
      reason.focus();
      nodes.message.replaceChildren(el("p", { class: "error", role: "alert" }, "Give a reason: it is recorded with your name."));
      return;
    }
    try {
      await api(`/matches/${id}/clock/${path}`, { token, method: "POST", body: { ...body, reason: reason.value.trim() } });
      clockReason = "";
    } catch (err) {
      nodes.message.replaceChildren(errorBox(err));
    }
    await refresh();
  };
  const over = state.status === "finished";
  nodes.clocks.replaceChildren(...[bar.node, over ? null : el("form", { class: "legal clock-td", id: "clock-td",
    onsubmit: (e) => { e.preventDefault(); send("time", { seat: seat.value, time: time.value.trim() }); } },
  el("label", { for: "clock-reason" }, "Reason "), reason,
  el("button", { type: "button", id: "clock-pause", onclick: () => send(state.clock.paused ? "resume" : "pause", {}) },
    state.clock.paused ? "Resume clocks" : "Pause clocks"),
  seat, time, el("button", { type: "submit", id: "clock-add" }, "Add time"))].filter(Boolean));
}

async function refresh() {
  const id = encodeURIComponent(matchId);
  const [state, table, rulings, watch] = await Promise.all([
    api(`/matches/${id}/state`, { token }), api(`/matches/${id}/table`, { token }), api(`/audit?match=${id}`, { token }),
    api(`/matches/${id}/watch`),
  ]);
  drawWatch(watch, state.watchers);
  nodes.heading.textContent = `TD · ${gameTitle(state.game)} · ${matchId}`;
  const winners = (state.result && state.result.winners) || [];
  const won = !winners.length ? null
    : state.board ? `board ${state.board.board} of ${state.board.boards} (duplicate ${state.board.duplicate}): ${winners.join(" and ")} ${winners.length === 1 ? "has" : "share"} this table's best score`
      : winners.length === 1 ? `${winners[0]} wins the match` : `${winners.join(" and ")} share first place`;
  nodes.status.textContent = (state.status === "finished"
    ? [`Deal ${state.deal || "–"}`, "match over", won]
    : [`Deal ${state.deal || "–"}`, phaseText(state.phase), state.to_act.length ? `to act: ${state.to_act.join(", ")}` : null])
    .filter(Boolean).join(" · ");
  nodes.deal.disabled = !table.can_deal;
  nodes.deal.textContent = `Deal next (deal ${table.deal + 1})`;
  nodes.auto.textContent = table.auto_deal
    ? "This match deals by itself: its first deal when it was created, then each next one when a deal ends (recorded as dealt by the table)."
    : "This match deals only when a TD deals (Deal next, or kartludo match deal).";
  nodes.rulings.replaceChildren(...(rulings.length
    ? rulings.map((r) => el("li", { dataset: { ruling: r.id } },
      el("a", { href: `/ui/audit/${r.match}/${r.ruling_id}` }, r.id), ` · deal ${r.deal} · ${r.player} · ${r.status} · `,
      ruleLink(r.rule, r.game)))
    : [el("li", { class: "muted" }, "No rulings recorded.")]));
  drawClocks(state);
  try {
    nodes.table.replaceChildren(renderTable(state, {}));
  } catch (err) {
    nodes.table.replaceChildren(errorBox(err));
  }
  return state;
}

/** The public watch link, how its watchers see the match, and a form to change it. */
function drawWatch(watch, count) {
  const how = watch.delay === "live" ? "live (hands hidden while a deal runs)"
    : `delayed by ${watch.delay}${watch.hands ? ", every hand shown" : ", hands hidden while a deal runs"}`;
  nodes.watchInfo.replaceChildren("Watch link ",
    el("a", { href: `/ui/watch/${encodeURIComponent(matchId)}`, id: "watch-link" }, `/ui/watch/${matchId}`),
    `: watchers see it ${how}`, typeof count === "number" ? ` · ${count} watching` : "");
  if (document.activeElement !== nodes.watchDelay) nodes.watchDelay.value = watch.delay === "live" ? "0" : (watch.moves ?? `${watch.seconds}s`);
  nodes.watchHands.checked = watch.hands;
}

async function setWatch(e) {
  e.preventDefault();
  nodes.message.replaceChildren();
  try {
    const watch = await api(`/matches/${encodeURIComponent(matchId)}/watch`, { token, method: "PUT",
      body: { delay: nodes.watchDelay.value.trim(), hands: nodes.watchHands.checked } });
    drawWatch(watch, null);
    refreshSoon();
  } catch (err) {
    nodes.message.replaceChildren(errorBox(err));
  }
}

let pending = null;
function refreshSoon() {
  if (pending) return;
  pending = setTimeout(() => {
    pending = null;
    refresh().catch((err) => nodes.message.replaceChildren(errorBox(err)));
  }, 80);
}

async function start() {
  if (stop) stop();
  if (!token) {
    askForToken(null);
    return;
  }
  const { refused } = await tdHolder(token);
  if (refused) {
    token = null;
    askForToken(refused);
    return;
  }
  nodes.heading = el("h1", {});
  nodes.status = el("p", { id: "status", "aria-live": "polite" });
  nodes.deal = el("button", { type: "button", class: "primary", id: "deal-next", onclick: dealNext, disabled: true }, "Deal next");
  nodes.auto = el("p", { class: "muted", id: "auto-deal" });
  nodes.message = el("div", { id: "message", "aria-live": "assertive" });
  nodes.clocks = el("div", { id: "clocks-box" });
  nodes.table = el("div", { id: "table" });
  nodes.rulings = el("ul", { id: "rulings" });
  nodes.watchInfo = el("p", { id: "watch-info" });
  nodes.watchDelay = el("input", { id: "watch-delay-input", name: "delay", size: 6, autocomplete: "off",
    "aria-describedby": "watch-help" });
  nodes.watchHands = el("input", { type: "checkbox", id: "watch-hands-input", name: "hands" });
  show(main,
    el("div", { class: "live-head" }, nodes.heading,
      el("a", { href: `/ui/replay/${matchId}` }, "replay"),
      el("a", { href: `/ui/audit?match=${encodeURIComponent(matchId)}` }, "rulings"),
      el("button", { type: "button", onclick: () => { storeToken(TD_SCOPE, null); token = null; start(); } }, "Forget token")),
    nodes.status,
    el("div", { class: "legal" }, nodes.deal), nodes.auto, nodes.watchInfo,
    el("form", { class: "legal", id: "watch-form", onsubmit: setWatch },
      el("label", { for: "watch-delay-input" }, "Watch delay "), nodes.watchDelay,
      el("label", { for: "watch-hands-input" }, nodes.watchHands, " every hand (delayed only)"),
      el("button", { type: "submit" }, "Set"),
      el("span", { class: "muted", id: "watch-help" }, "2 (moves), 30s (seconds) or 0 (live)")),
    nodes.clocks, nodes.message,
    el("section", { "aria-label": "Table (every hand)" }, nodes.table),
    el("h2", {}, "Rulings"), nodes.rulings);
  await refresh();
  stop = followEvents(matchId, { token, onEvent: refreshSoon });
}

start().catch((err) => show(main, el("h1", {}, `TD · ${matchId}`), errorBox(err)));
