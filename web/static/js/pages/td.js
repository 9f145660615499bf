// The TD's page of one match: the table with every hand (the TD's view), Deal next when
// a deal may start, whether the match deals by itself, and the match's rulings. Needs a
// TD token (kept in this tab only, like a seat's).
import { api, el, errorBox, followEvents, gameTitle, page, ruleLink, show, storeToken, takeTokenFromFragment } from "../api.js";
import { renderTable } from "../tables/index.js";
import { phaseText } from "../tables/common.js";

const { main, data } = page();
const matchId = data.match;
const SCOPE = "td";
let token = takeTokenFromFragment(SCOPE);
let stop = null;
const nodes = {};

function askForToken(message) {
  const input = el("input", { type: "password", id: "token", name: "token", autocomplete: "off", required: true, size: 40 });
  show(main,
    el("h1", {}, `TD · ${matchId}`),
    message ? el("p", { class: "error", role: "alert" }, message) : null,
    el("p", {}, "This page needs a TD token. It stays in this browser tab and is sent only to this server."),
    el("form", { class: "token", onsubmit: (e) => {
      e.preventDefault();
      token = input.value.trim();
      storeToken(SCOPE, token);
      start();
    } }, el("label", { for: "token" }, "TD token ", input), el("button", { type: "submit", class: "primary" }, "Open")));
  input.focus();
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

async function refresh() {
  const id = encodeURIComponent(matchId);
  const [state, table, rulings] = await Promise.all([
    api(`/matches/${id}/state`, { token }), api(`/matches/${id}/table`, { token }), api(`/audit?match=${id}`, { token }),
  ]);
  nodes.heading.textContent = `TD · ${gameTitle(state.game)} · ${matchId}`;
  nodes.status.textContent = [`Deal ${state.deal || "–"}`, phaseText(state.phase), state.status === "finished" ? "match over" : null,
    state.to_act.length ? `to act: ${state.to_act.join(", ")}` : null].filter(Boolean).join(" · ");
  nodes.deal.disabled = !table.can_deal;
  nodes.deal.textContent = `Deal next (deal ${table.deal + 1})`;
  nodes.auto.textContent = table.auto_deal
    ? "This match deals by itself when a deal ends (recorded as dealt by the table)."
    : "This match deals only when a TD deals (Deal next, or kartludo match deal).";
  nodes.rulings.replaceChildren(...(rulings.length
    ? rulings.map((r) => el("li", { dataset: { ruling: r.id } },
      el("a", { href: `/ui/audit/${r.match}/${r.ruling_id}` }, r.id), ` · deal ${r.deal} · ${r.player} · ${r.status} · `,
      ruleLink(r.rule, r.game)))
    : [el("li", { class: "muted" }, "No rulings recorded.")]));
  try {
    nodes.table.replaceChildren(renderTable(state, {}));
  } catch (err) {
    nodes.table.replaceChildren(errorBox(err));
  }
  return state;
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
  let me;
  try {
    me = await api("/me", { token });
  } catch (err) {
    storeToken(SCOPE, null);
    token = null;
    askForToken(err.status === 401 ? "That token is unknown or revoked." : err.message);
    return;
  }
  if (me.role !== "td") {
    storeToken(SCOPE, null);
    token = null;
    askForToken("That is a seat token: this page needs a TD token.");
    return;
  }
  nodes.heading = el("h1", {});
  nodes.status = el("p", { id: "status", "aria-live": "polite" });
  nodes.deal = el("button", { type: "button", class: "primary", id: "deal-next", onclick: dealNext, disabled: true }, "Deal next");
  nodes.auto = el("p", { class: "muted", id: "auto-deal" });
  nodes.message = el("div", { id: "message", "aria-live": "assertive" });
  nodes.table = el("div", { id: "table" });
  nodes.rulings = el("ul", { id: "rulings" });
  show(main,
    el("div", { class: "live-head" }, nodes.heading,
      el("a", { href: `/ui/replay/${matchId}` }, "replay"),
      el("a", { href: `/ui/audit?match=${encodeURIComponent(matchId)}` }, "rulings"),
      el("button", { type: "button", onclick: () => { storeToken(SCOPE, null); token = null; start(); } }, "Forget token")),
    nodes.status,
    el("div", { class: "legal" }, nodes.deal), nodes.auto, nodes.message,
    el("section", { "aria-label": "Table (every hand)" }, nodes.table),
    el("h2", {}, "Rulings"), nodes.rulings);
  await refresh();
  stop = followEvents(matchId, { token, onEvent: refreshSoon });
}

start().catch((err) => show(main, el("h1", {}, `TD · ${matchId}`), errorBox(err)));
