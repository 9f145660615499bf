// A series: its standings (MP, −2 MP per Uxinjo foul) and matches, as `kartludo series show`.
import { api, el, errorBox, gameTitle, page, show } from "../api.js";

const { main, data } = page();

async function load() {
  const r = await api(`/series/${encodeURIComponent(data.series)}`);
  const headers = ["player", "matches", "finished", "MP", "fouls", "foul MP", "total"];
  show(main,
    el("h1", {}, `Series ${r.series} · ${gameTitle(r.game)}`),
    el("p", {}, `${r.players.join(", ")} · ${r.minutes} minutes from ${r.starts_at} · deadline ${r.deadline}`,
      r.ended ? el("strong", {}, " · ended") : " · running"),
    el("h2", {}, "Standings"),
    el("div", { class: "scroll" }, el("table", { class: "data", id: "series-standings" },
      el("thead", {}, el("tr", {}, headers.map((h) => el("th", { scope: "col", class: h === "player" ? null : "num" }, h)))),
      el("tbody", {}, r.standings.map((s) => el("tr", { dataset: { player: s.player } },
        el("th", { scope: "row" }, s.player),
        [s.matches, s.finished, s.match_points, s.fouls, s.foul_mp, s.total].map((v) => el("td", { class: "num" }, v))))))),
    el("h2", {}, "Matches"),
    r.matches.length
      ? el("ol", { id: "series-matches" }, r.matches.map((m) => el("li", {},
          el("a", { href: `/ui/replay/${m.match}` }, m.match), ` · ${m.status.replace("_", " ")} · seats ${m.seats.join(", ")}`)))
      : el("p", { class: "muted" }, "No match yet."),
  );
}

load().catch((err) => show(main, el("h1", {}, `Series ${data.series}`), errorBox(err)));
