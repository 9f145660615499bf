// A duplicate event's page: its progress, boards × tables (played, playing, waiting), the
// travellers of the boards every table has played, and the standings, refreshed every few
// seconds. With a TD token (kept in this tab, as on the TD page) it is the TD's page: who
// is to act at each board in play, every board's traveller at any time, and links to each
// board's TD page. A player's link (this page with #token=PLAYER-TOKEN) opens the player's
// board in play at the table page, the token kept in this tab.
import {
  api, askForTdToken, el, errorBox, gameTitle, page, show, storeToken, storedToken, TD_SCOPE, tdHolder,
} from "../api.js";

const { main, data } = page();
const eventId = data.duplicate;
const POLL_MS = 3000;
let token = null; // a TD's, or none (the public view)
let timer = null;
const nodes = {};
const opened = new Set(); // the boards whose traveller is open

/** A token in the URL fragment: a TD's is kept for the TD pages; a player's opens the player's board. */
async function tokenFromFragment() {
  const params = new URLSearchParams(location.hash.slice(1));
  const given = params.get("token");
  if (!given) return;
  params.delete("token");
  const rest = params.toString();
  history.replaceState(null, "", location.pathname + location.search + (rest ? `#${rest}` : ""));
  const me = await api("/me", { token: given });
  if (me.role === "player") {
    const where = await api(`/duplicates/${encodeURIComponent(eventId)}/me`, { token: given });
    storeToken(where.match, given);
    location.replace(`/ui/table/${encodeURIComponent(where.match)}`);
    throw new Error("opening your board…");
  }
  if (me.role === "td") storeToken(TD_SCOPE, given);
}

function cell(t, b, td) {
  const label = { played: "played", playing: "playing", waiting: "–" }[b.status];
  const link = b.match && (td ? `/ui/td/${b.match}` : null);
  const content = [link ? el("a", { href: link }, label) : label];
  if (td && b.status === "playing") {
    content.push(el("span", { class: "who" }, b.to_act && b.to_act.length ? `to act: ${b.to_act.join(", ")}` : b.phase));
  }
  return el("td", { class: b.status, dataset: { table: t.table, board: b.board, status: b.status } }, content);
}

function grid(p, td) {
  return el("div", { class: "scroll" }, el("table", { class: "data grid", id: "grid" },
    el("caption", {}, "Boards × tables: played, playing (", td ? "who is to act" : "under way", ") or waiting (–)"),
    el("thead", {}, el("tr", {}, el("th", { scope: "col" }, "table"),
      Array.from({ length: p.boards }, (_, k) => el("th", { scope: "col", class: p.complete.includes(k + 1) ? "complete" : null },
        `board ${k + 1}`)))),
    el("tbody", {}, p.tables.map((t) => el("tr", { dataset: { table: t.table } },
      el("th", { scope: "row" }, `${t.table}`, el("span", { class: "who" }, t.players.join(", "))),
      t.boards.map((b) => cell(t, b, td)))))));
}

function standingsTable(s) {
  return el("div", { class: "scroll" }, el("table", { class: "data", id: "standings" },
    el("caption", {}, `Over the ${s.boards_complete} of ${s.boards} boards every table has played`),
    el("thead", {}, el("tr", {}, ["rank", "player", "table", "boards", "MP", "%", "±"].map((h, i) =>
      el("th", { scope: "col", class: i === 1 ? null : "num" }, h)))),
    el("tbody", {}, s.rows.map((r) => el("tr", { dataset: { player: r.player } },
      el("td", { class: "num" }, r.rank), el("th", { scope: "row" }, r.player), el("td", { class: "num" }, r.table),
      el("td", { class: "num" }, r.boards), el("td", { class: "num" }, `${r.matchpoints}/${r.top}`),
      el("td", { class: "num" }, r.percentage.toFixed(1)), el("td", { class: "num" }, r.difference.toFixed(2)))))));
}

function travellerTable(t) {
  const rows = t.tables.flatMap((tr) => tr.results.map((r) => ({ table: tr.table, ...r })));
  if (!rows.length) return el("p", { class: "muted" }, "No table has played this board yet.");
  return el("div", {},
    el("div", { class: "scroll" }, el("table", { class: "data traveller", id: `traveller-${t.board}` },
      el("thead", {}, el("tr", {}, ["table", "seat", "player", "score", "MP", "%", "±"].map((h, i) =>
        el("th", { scope: "col", class: i >= 3 ? "num" : null }, h)))),
      el("tbody", {}, rows.map((r) => el("tr", {},
        el("td", {}, r.table), el("td", {}, r.seat), el("th", { scope: "row" }, r.player), el("td", { class: "num" }, r.score),
        el("td", { class: "num" }, `${r.matchpoints}/${r.top}`), el("td", { class: "num" }, r.percentage.toFixed(1)),
        el("td", { class: "num" }, r.difference.toFixed(2))))))),
    el("p", { class: "muted" }, t.complete ? "Played at every table." : "Not yet played at every table (a TD sees it now).",
      t.higher_is_better ? " Higher scores are better." : " Lower scores are better."),
    t.deck ? el("p", { class: "muted deck-line" }, `Deck (top first): ${t.deck.join(" ")}`) : null);
}

/** One board's traveller, loaded when opened (a TD's for any board, anyone's for a board played everywhere). */
function travellerItem(board, complete) {
  const body = el("div", { class: "traveller-body" });
  const details = el("details", { dataset: { board }, ontoggle: async () => {
    if (!details.open) {
      opened.delete(board);
      return;
    }
    opened.add(board);
    try {
      body.replaceChildren(travellerTable(await api(`/duplicates/${encodeURIComponent(eventId)}/boards/${board}`, { token })));
    } catch (err) {
      body.replaceChildren(errorBox(err));
    }
  } }, el("summary", {}, `Board ${board}`, complete ? "" : " (not yet played at every table)"), body);
  if (opened.has(board)) details.open = true;
  return details;
}

async function refresh(td) {
  const id = encodeURIComponent(eventId);
  const [p, s] = await Promise.all([api(`/duplicates/${id}`, { token }), api(`/duplicates/${id}/standings`, { token })]);
  nodes.heading.textContent = `Duplicate ${p.duplicate} · ${gameTitle(p.game)}${p.label ? ` · ${p.label}` : ""}`;
  document.title = `${nodes.heading.textContent} · kartludo`;
  nodes.summary.textContent = `${p.boards} boards × ${p.tables.length} tables · ${p.played} of ${p.total} played · `
    + (p.complete.length ? `boards played at every table: ${p.complete.join(", ")}` : "no board played at every table yet");
  nodes.grid.replaceChildren(grid(p, td));
  nodes.standings.replaceChildren(standingsTable(s));
  const available = Array.from({ length: p.boards }, (_, k) => k + 1)
    .filter((k) => p.complete.includes(k) || (td && p.tables.some((t) => t.boards[k - 1].status !== "waiting")));
  const key = available.map((k) => `${k}${p.complete.includes(k) ? "" : "?"}`).join(",");
  if (nodes.travellers.dataset.boards !== key) { // redrawn only when a board becomes readable (an open one stays open)
    nodes.travellers.dataset.boards = key;
    nodes.travellers.replaceChildren(...(available.length
      ? available.map((k) => travellerItem(k, p.complete.includes(k)))
      : [el("p", { class: "muted" }, "A board's traveller shows here once every table has played it.")]));
  }
  nodes.message.replaceChildren();
}

async function start() {
  if (timer) clearInterval(timer);
  await tokenFromFragment();
  token = storedToken(TD_SCOPE);
  let td = false;
  if (token) {
    const { refused } = await tdHolder(token, "this page shows the public view without one");
    td = !refused;
    if (refused) token = null;
  }
  nodes.heading = el("h1", {}, `Duplicate ${eventId}`);
  nodes.summary = el("p", { id: "summary", "aria-live": "polite" });
  nodes.grid = el("section", { "aria-label": "Progress" });
  nodes.standings = el("div", {});
  nodes.travellers = el("div", { id: "travellers" });
  nodes.message = el("div", { id: "message", "aria-live": "assertive" });
  show(main,
    el("div", { class: "live-head" }, nodes.heading,
      td ? el("span", { class: "muted", id: "role" }, "TD view")
        : el("button", { type: "button", id: "open-td", onclick: () => askForTdToken(main, {
          title: `Duplicate ${eventId}`, intro: "A TD token shows who is to act and every board's traveller at any time.",
          onToken: () => start().catch(failed) }) }, "Open as TD"),
      td ? el("button", { type: "button", onclick: () => { storeToken(TD_SCOPE, null); start().catch(failed); } }, "Forget token") : null),
    nodes.summary, nodes.message, nodes.grid,
    el("h2", {}, "Standings"), nodes.standings,
    el("h2", {}, "Travellers"), nodes.travellers);
  await refresh(td);
  timer = setInterval(() => refresh(td).catch((err) => nodes.message.replaceChildren(errorBox(err))), POLL_MS);
}

function failed(err) {
  show(main, el("h1", {}, `Duplicate ${eventId}`), errorBox(err));
}

start().catch(failed);
