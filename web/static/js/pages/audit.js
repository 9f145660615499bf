// Every recorded penalty ruling, with its status; each links to its page.
import { api, el, errorBox, formatTime, gameTitle, page, ruleLink, show } from "../api.js";

async function load(main) {
  const q = new URLSearchParams(location.search);
  const filter = new URLSearchParams();
  if (q.get("match")) filter.set("match", q.get("match"));
  if (q.get("player")) filter.set("player", q.get("player"));
  const rows = await api(`/audit?${filter}`);
  show(main,
    el("h1", {}, "Rulings"),
    rows.length
      ? el("div", { class: "scroll" }, el("table", { class: "data", id: "rulings" },
          el("thead", {}, el("tr", {}, ["Ruling", "Game", "Deal", "Player", "Rule", "Status", "Recorded"]
            .map((h) => el("th", { scope: "col" }, h)))),
          el("tbody", {}, rows.map((r) => el("tr", { dataset: { ruling: r.id } },
            el("td", {}, el("a", { href: `/ui/audit/${r.match}/${r.ruling_id}` }, r.id)),
            el("td", {}, gameTitle(r.game)),
            el("td", { class: "num" }, r.deal),
            el("td", {}, r.player),
            el("td", {}, ruleLink(r.rule, r.game)),
            el("td", {}, r.status),
            el("td", {}, formatTime(r.recorded_at)))))))
      : el("p", { class: "note" }, "No rulings recorded."),
  );
}

const { main } = page();
load(main).catch((err) => show(main, el("h1", {}, "Rulings"), errorBox(err)));
