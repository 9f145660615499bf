// Every series, as `kartludo series list`: id, game, status, start, deadline, matches and
// players, filtered by status, game and player (the URL keeps them); each links to its
// page of standings and matches.
import { api, el, errorBox, GAMES, gameTitle, page, show } from "../api.js";

const STATUSES = ["running", "upcoming", "ended"];

function filtersFromURL() {
  const q = new URLSearchParams(location.search);
  return { status: q.get("status") || "", game: q.get("game") || "", player: q.get("player") || "" };
}

let current = {};
let shown = 0; // the newest load: an older one answering late draws nothing

async function load(main, f) {
  current = f;
  const mine = ++shown;
  const all = await api("/series");
  if (mine !== shown) return;
  const players = [...new Set(all.flatMap((s) => s.players))].sort();
  const rows = all.filter((s) => (!f.status || s.status === f.status) && (!f.game || s.game === f.game)
    && (!f.player || s.players.includes(f.player)));
  const pick = (key, label, options) => el("label", { for: `filter-${key}` }, label,
    el("select", { id: `filter-${key}`, onchange: (e) => {
      const next = { ...current, [key]: e.target.value };
      const q = new URLSearchParams(Object.entries(next).filter(([, v]) => v));
      history.replaceState(null, "", q.toString() ? `?${q}` : location.pathname);
      load(main, next).catch((err) => main.append(errorBox(err)));
    } }, options.map(([v, text]) => el("option", { value: v, selected: v === f[key] }, text))));
  show(main,
    el("h1", {}, "Series"),
    el("form", { class: "filters", role: "search", "aria-label": "Filter the series", onsubmit: (e) => e.preventDefault() },
      pick("status", "Status", [["", "any status"], ...STATUSES.map((s) => [s, s])]),
      pick("game", "Game", [["", "every game"], ...GAMES.map((g) => [g.name, g.title])]),
      pick("player", "Player", [["", "every player"], ...players.map((p) => [p, p])])),
    rows.length
      ? el("div", { class: "scroll" }, el("table", { class: "data stack", id: "series" },
          el("caption", { class: "muted" }, `${rows.length} of ${all.length} series, earliest start first`),
          el("thead", {}, el("tr", {}, ["Series", "Game", "Status", "Starts", "Deadline", "Matches", "Players"]
            .map((h) => el("th", { scope: "col", class: h === "Matches" ? "num" : null }, h)))),
          el("tbody", {}, rows.map((s) => el("tr", { dataset: { series: s.series } },
            el("td", { "data-label": "Series" }, el("a", { href: `/ui/series/${encodeURIComponent(s.series)}` }, s.series)),
            el("td", { "data-label": "Game" }, gameTitle(s.game)),
            el("td", { "data-label": "Status" }, el("span", { class: `status ${s.status}` }, s.status)),
            el("td", { "data-label": "Starts" }, s.starts_at),
            el("td", { "data-label": "Deadline" }, s.deadline),
            el("td", { class: "num", "data-label": "Matches" }, s.matches),
            el("td", { "data-label": "Players" }, s.players.join(", ")))))))
      : el("p", { class: "note", id: "no-series" }, all.length ? "No series matches these filters."
        : ["No series yet. Create one with ", el("code", {}, "kartludo series new"), "."]),
  );
}

const { main } = page();
load(main, filtersFromURL()).catch((err) => show(main, el("h1", {}, "Series"), errorBox(err)));
