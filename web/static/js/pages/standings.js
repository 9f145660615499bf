// League standings: the same figures as `kartludo standings` (per game or across games).
import { GAMES as ALL_GAMES, api, el, errorBox, gameTitle, page, show } from "../api.js";

const GAMES = ALL_GAMES.map((g) => g.name);
const SORTS = ["rating", "matches", "wins", "score", "placement", "player"];

/** "1:2 2:1", as the CLI prints places (keys in the same string order). */
export function formatPlaces(places) {
  return Object.keys(places).sort().map((k) => `${k}:${places[k]}`).join(" ");
}

async function load(main, game, sort) {
  const q = new URLSearchParams({ sort });
  if (game) q.set("game", game);
  const rows = await api(`/standings?${q}`);
  const pick = (id, label, options, value, names) => el("label", { for: id }, label,
    el("select", { id, onchange: () => {
      const g = document.getElementById("game").value;
      const s = document.getElementById("sort").value;
      history.replaceState(null, "", `?${new URLSearchParams({ ...(g ? { game: g } : {}), sort: s })}`);
      load(main, g, s).catch((err) => main.append(errorBox(err)));
    } }, options.map((o, i) => el("option", { value: o, selected: o === value }, names[i]))));
  const headers = ["player", "matches", "wins", "places", "score", "placement", "rating", "mu", "sigma"];
  const numeric = new Set(["matches", "wins", "score", "placement", "rating", "mu", "sigma"]);
  show(main,
    el("h1", {}, `Standings · ${game ? gameTitle(game) : "all games"}`),
    el("div", { class: "filters" },
      pick("game", "Game", ["", ...GAMES], game, ["every game", ...GAMES.map(gameTitle)]),
      pick("sort", "Sort by", SORTS, sort, SORTS)),
    rows.length
      ? el("div", { class: "scroll" }, el("table", { class: "data", id: "standings" },
          el("thead", {}, el("tr", {}, headers.map((h) => el("th", { scope: "col", class: numeric.has(h) ? "num" : null }, h)))),
          el("tbody", {}, rows.map((r) => el("tr", { dataset: { player: r.player } },
            el("th", { scope: "row" }, r.player),
            el("td", { class: "num" }, r.matches),
            el("td", { class: "num" }, r.wins),
            el("td", {}, formatPlaces(r.places)),
            el("td", { class: "num" }, r.score ?? ""),
            el("td", { class: "num" }, r.placement_points),
            el("td", { class: "num" }, `${r.rating.toFixed(2)}${r.provisional ? "*" : ""}`),
            el("td", { class: "num" }, r.mu.toFixed(2)),
            el("td", { class: "num" }, r.sigma.toFixed(2)))))))
      : el("p", { class: "note" }, "No finished matches yet."),
    el("p", { class: "muted" }, "* provisional: fewer than 5 matches; rating = mu − 3 sigma (openskill Plackett-Luce)"),
  );
}

const { main } = page();
const q = new URLSearchParams(location.search);
load(main, q.get("game") || "", SORTS.includes(q.get("sort")) ? q.get("sort") : "rating")
  .catch((err) => show(main, el("h1", {}, "Standings"), errorBox(err)));
