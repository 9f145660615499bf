// League standings: the same figures as `kartludo standings` (per game or across games).
import { GAMES as ALL_GAMES, api, el, errorBox, gameTitle, page, show } from "../api.js";

const GAMES = ALL_GAMES.map((g) => g.name);
const SORTS = ["rating", "matches", "wins", "score", "placement", "player"];
/** A phone's screen: the rating right after the player, the columns a glance needs, the rest on request. */
const NARROW = window.matchMedia("(max-width: 40rem)");
let everyColumn = false;

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
  // the columns of `kartludo standings` (its CSV's header), the provisional mark on the rating
  const total = game ? ALL_GAMES.find((g) => g.name === game)?.total : null;
  const full = ["rank", "player", "matches", "wins", "places", ...(total ? [total.column] : []),
    "placement_points", "fouls", "rating", "mu", "sigma"];
  const compact = NARROW.matches && !everyColumn;
  const columns = compact ? ["rank", "player", "rating", ...(total ? [total.column] : ["matches"]), "wins"] : full;
  const cell = (r, c) => {
    if (c === "places") return formatPlaces(r.places);
    if (c === "rating") return `${r.rating.toFixed(2)}${r.provisional ? "*" : ""}`;
    if (c === "mu" || c === "sigma") return r[c].toFixed(2);
    return r[c];
  };
  const by = { score: total ? total.column : "score", placement: "placement_points" }[sort] || sort;
  const legend = [
    `rank: by ${by}${sort === "player" ? "" : ", ties share a rank"}; places: how often the player finished 1st, 2nd, …`,
    ...(total ? [`${total.column}: ${total.legend}`] : []),
    "placement_points: per match, players placed below minus players placed above (ties share)",
    "fouls: penalty rulings standing against the player (an overturn removes one)",
    "rating: openskill mu − 3 sigma; * provisional: fewer than 5 matches",
  ];
  show(main,
    el("h1", {}, `Standings · ${game ? gameTitle(game) : "all games"}`),
    el("div", { class: "filters" },
      pick("game", "Game", ["", ...GAMES], game, ["every game", ...GAMES.map(gameTitle)]),
      pick("sort", "Sort by", SORTS, sort, SORTS),
      NARROW.matches ? el("button", { type: "button", id: "columns", "aria-pressed": everyColumn ? "true" : "false",
        onclick: () => {
          everyColumn = !everyColumn;
          load(main, game, sort).catch((err) => main.append(errorBox(err)));
        } }, everyColumn ? "Fewer columns" : "Every column") : null),
    rows.length
      ? el("div", { class: "scroll" }, el("table", { class: "data", id: "standings" },
          el("thead", {}, el("tr", {}, columns.map((h) => el("th", { scope: "col", class: h === "player" || h === "places" ? null : "num" }, h)))),
          el("tbody", {}, rows.map((r) => el("tr", { dataset: { player: r.player } },
            columns.map((c) => c === "player"
              ? el("th", { scope: "row" }, r.player)
              : el("td", { class: c === "places" ? null : "num" }, cell(r, c))))))))
      : el("p", { class: "note" }, "No finished matches yet."),
    el("ul", { class: "muted legend", id: "legend" }, legend.map((line) => el("li", {}, line))),
  );
}

const { main } = page();
const q = new URLSearchParams(location.search);
const reload = () => load(main, document.getElementById("game")?.value ?? (q.get("game") || ""),
  document.getElementById("sort")?.value ?? (SORTS.includes(q.get("sort")) ? q.get("sort") : "rating"))
  .catch((err) => show(main, el("h1", {}, "Standings"), errorBox(err)));
reload();
NARROW.addEventListener("change", reload); // a phone turned on its side gets every column back
