// The TD's page of one match: the table with every hand (the TD's view), Deal next when
// a deal may start, whether the match deals by itself, and the match's rulings. Needs a
// TD token (kept in this tab only, like a seat's).
import {
  api, askForTdToken, el, errorBox, followEvents, gameTitle, page, ruleLink, show, storeToken, takeTokenFromFragment, TD_SCOPE,
  tdHolder,
} from "../api.js";
import { renderTable } from "../tables/index.js";
import { phaseText } from "../tables/common.js";

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
    nodes.message,
    el("section", { "aria-label": "Table (every hand)" }, nodes.table),
    el("h2", {}, "Rulings"), nodes.rulings);
  await refresh();
  stop = followEvents(matchId, { token, onEvent: refreshSoon });
}

start().catch((err) => show(main, el("h1", {}, `TD · ${matchId}`), errorBox(err)));
