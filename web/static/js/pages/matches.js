// The match list: every match with its game, players, status and date, newest first.
import { GAMES as ALL_GAMES, api, el, errorBox, formatTime, gameTitle, page, show } from "../api.js";

const GAMES = ALL_GAMES.map((g) => g.name);

async function load(main, game) {
  const rows = await api(`/matches${game ? `?game=${encodeURIComponent(game)}` : ""}`);
  rows.reverse();
  const filter = el("select", { id: "game-filter", onchange: (e) => {
    const g = e.target.value;
    history.replaceState(null, "", g ? `?game=${g}` : location.pathname);
    load(main, g).catch((err) => main.append(errorBox(err)));
  } }, el("option", { value: "" }, "every game"),
  GAMES.map((g) => el("option", { value: g, selected: g === game }, gameTitle(g))));
  const body = rows.map((m) => el("tr", { dataset: { match: m.match } },
    el("td", { "data-label": "Match" }, el("a", { href: `/ui/replay/${m.match}` }, m.match)),
    el("td", { "data-label": "Game" }, gameTitle(m.game)),
    el("td", { "data-label": "Players" }, m.players.join(", ")),
    el("td", { "data-label": "Status" }, el("span", { class: `status ${m.status}` }, m.status.replace("_", " "))),
    el("td", { class: "num", "data-label": "Deal" }, m.deal || "–"),
    m.series ? el("td", { "data-label": "Series" }, el("a", { href: `/ui/series/${m.series}` }, m.series)) : el("td", {}),
    el("td", { "data-label": "Created" }, el("time", { datetime: m.created_at }, formatTime(m.created_at))),
    el("td", {}, el("a", { href: `/ui/replay/${m.match}`, "aria-label": `replay match ${m.match}` }, "replay"),
      " · ", el("a", { href: `/ui/table/${m.match}`, "aria-label": `seat table of match ${m.match}` }, "table")),
  ));
  show(main,
    el("h1", {}, "Matches"),
    el("div", { class: "filters" }, el("label", { for: "game-filter" }, "Game", filter)),
    rows.length
      ? el("div", { class: "scroll" }, el("table", { class: "data stack", id: "matches" },
          el("caption", { class: "muted" }, `${rows.length} match${rows.length === 1 ? "" : "es"}, newest first`),
          el("thead", {}, el("tr", {}, ["Match", "Game", "Players", "Status", "Deal", "Series", "Created", "Open"]
            .map((h) => el("th", { scope: "col", class: h === "Deal" ? "num" : null }, h)))),
          el("tbody", {}, body)))
      : el("p", { class: "note" }, "No matches yet. Create one with ", el("code", {}, "kartludo match new"), " or ",
          el("code", {}, "POST /matches"), "."),
  );
}

const { main } = page();
load(main, new URLSearchParams(location.search).get("game") || "").catch((err) => show(main, el("h1", {}, "Matches"), errorBox(err)));
