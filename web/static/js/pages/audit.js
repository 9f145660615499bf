// Every recorded penalty ruling, with its status; each links to its page, where a player
// of its match (or a TD) may appeal it. Filters by status, player, game and match, as
// `kartludo audit list --status --player --game --match` does; the URL keeps them.
import { api, el, errorBox, formatTime, GAMES, gameTitle, page, ruleLink, show } from "../api.js";

const STATUSES = ["standing", "appealed", "upheld", "overturned", "adjusted", "decision"];
/** A ruling that may still be appealed (not yet decided; a decision without a penalty is not appealable). */
const appealable = (r) => r.status === "standing" || r.status === "appealed";

function filtersFromURL() {
  const q = new URLSearchParams(location.search);
  return { status: q.get("status") || "", player: q.get("player") || "", game: q.get("game") || "", match: q.get("match") || "" };
}

function keepInURL(f) {
  const q = new URLSearchParams(Object.entries(f).filter(([, v]) => v));
  history.replaceState(null, "", q.toString() ? `?${q}` : location.pathname);
}

let shown = 0; // the newest load: an older one answering late draws nothing

/** Change one filter (the others as the page shows them now), keep it in the URL, redraw. */
function refilter(main, key, value) {
  const next = { ...current, [key]: value };
  keepInURL(next);
  load(main, next).catch((err) => main.append(errorBox(err)));
}

let current = {};

async function load(main, f) {
  current = f;
  const mine = ++shown;
  const all = await api(`/audit${f.match ? `?match=${encodeURIComponent(f.match)}` : ""}`);
  if (mine !== shown) return;
  const players = [...new Set(all.map((r) => r.player))].sort();
  const rows = all.filter((r) => (!f.status || r.status === f.status) && (!f.player || r.player === f.player)
    && (!f.game || r.game === f.game));
  const pick = (id, label, options, value) => el("label", { for: id }, label,
    el("select", { id, onchange: (e) => refilter(main, id.replace("filter-", ""), e.target.value) },
      options.map(([v, text]) => el("option", { value: v, selected: v === value }, text))));
  const filters = el("form", { class: "filters", id: "filters", role: "search", "aria-label": "Filter the rulings",
    onsubmit: (e) => e.preventDefault() },
  pick("filter-status", "Status", [["", "any status"], ...STATUSES.map((s) => [s, s])], f.status),
  pick("filter-player", "Player", [["", "every player"], ...[...new Set([...players, f.player].filter(Boolean))].map((p) => [p, p])], f.player),
  pick("filter-game", "Game", [["", "every game"], ...GAMES.map((g) => [g.name, g.title])], f.game),
  f.match ? el("span", {}, `match ${f.match} `, el("a", { href: "/ui/audit", onclick: (e) => {
    e.preventDefault();
    refilter(main, "match", "");
  } }, "(every match)")) : null);
  const any = Object.values(f).some(Boolean);
  show(main,
    el("h1", {}, "Rulings"),
    filters,
    rows.length
      ? el("div", { class: "scroll" }, el("table", { class: "data stack", id: "rulings" },
          el("caption", { class: "muted" }, `${rows.length} of ${all.length} ruling${all.length === 1 ? "" : "s"}`),
          el("thead", {}, el("tr", {}, ["Ruling", "Game", "Deal", "Player", "Rule", "Status", "Recorded", ""]
            .map((h) => el("th", { scope: "col" }, h)))),
          el("tbody", {}, rows.map((r) => el("tr", { dataset: { ruling: r.id, status: r.status } },
            el("td", { "data-label": "Ruling" }, el("a", { href: `/ui/audit/${r.match}/${r.ruling_id}` }, r.id)),
            el("td", { "data-label": "Game" }, gameTitle(r.game)),
            el("td", { class: "num", "data-label": "Deal" }, r.deal),
            el("td", { "data-label": "Player" }, r.player),
            el("td", { "data-label": "Rule" }, ruleLink(r.rule, r.game)),
            el("td", { "data-label": "Status" }, r.status),
            el("td", { "data-label": "Recorded" }, formatTime(r.recorded_at)),
            el("td", {}, appealable(r)
              ? el("a", { href: `/ui/audit/${r.match}/${r.ruling_id}#appeal`, "aria-label": `appeal ruling ${r.id}` }, "appeal")
              : ""))))))
      : el("p", { class: "note", id: "no-rulings" }, any ? "No ruling matches these filters." : "No rulings recorded."),
  );
}

const { main } = page();
load(main, filtersFromURL()).catch((err) => show(main, el("h1", {}, "Rulings"), errorBox(err)));
