// Svoi Kozyri: two to four players, each owning a trump suit; one face-up pile whose
// top card the player to act must beat or pick up from.
import { badge, box, cardElement, cardName, cardRow, el, facts, plural, suitBadge, tableShell, termLink } from "./common.js";

const T = (word, text) => termLink("svoi-kozyri", word, text);

const PICKUP_RULE = {
  3: "3 cards: the top card is not of their trump suit",
  5: "5 cards: the top card is of their trump suit",
  all: "the whole pile: the top card is the ace of their trump suit",
};

function ordinal(n) {
  return `${n}${n % 10 === 1 && n % 100 !== 11 ? "st" : n % 10 === 2 && n % 100 !== 12 ? "nd" : n % 10 === 3 && n % 100 !== 13 ? "rd" : "th"}`;
}

function pileBox(s) {
  const pile = s.pile || [];
  const parts = [];
  if (s.top) {
    parts.push(el("div", { class: "t-stack-row" },
      el("figure", { class: "t-captioned t-top" }, cardElement(s.top),
        el("figcaption", {}, el("strong", {}, "Top: "), cardName(s.top)))));
  } else {
    parts.push(el("p", { class: "t-muted" }, "The pile is empty."));
  }
  parts.push(el("p", { class: "t-pile-count" }, `${plural(pile.length, "card")} in the pile`));
  if (pile.length > 1) {
    const under = pile.slice(0, -1);
    parts.push(el("details", { class: "t-pile-under", open: pile.length <= 24 },
      el("summary", {}, `Under the top (${under.length}, bottom first)`), cardRow(under, { small: true })));
  }
  return box("Pile", "t-pile", ...parts);
}

function turnBox(s) {
  if (!s.due) return null;
  let what;
  if (s.due === "beat") {
    const pk = s.pickup;
    what = [T("beat"), ` ${cardName(s.top)}`, pk ? [" or ", T("pick up"), ` ${plural(pk.count, "card")} (${PICKUP_RULE[pk.rule] || pk.rule})`] : ""];
  } else if (s.due === "lead") what = "lead any card";
  else if (s.due === "extra") what = ["add one more card on top (", T("extra card"), " after beating)"];
  else if (s.due === "free") what = ["play any card (", T("free play"), ": the previous player beat with their last card)"];
  else what = s.due;
  return box("Turn", "t-turn t-alert", el("p", {}, el("strong", {}, s.turn), " to ", what, "."));
}

function dealBox(s) {
  const out = s.out || [];
  const results = s.results || [];
  const parts = [facts([
    ["deals played", `${s.deals_played ?? 0} of ${s.deals ?? 8}`],
    ["out of this deal", out.length ? out.map((p, i) => `${p} (${ordinal(i + 1)})`).join(", ") : "nobody yet"],
    ["next dealer", s.next_dealer],
    ["problem", s.problem ? String(s.problem) : null],
  ])];
  if (results.length) {
    const ol = el("ol", { class: "t-results", "aria-label": "Deal results" });
    for (const r of results) ol.append(el("li", {}, `Deal ${r.deal}: `, r.draw ? "drawn" : `${r.loser} lost`));
    parts.push(el("h4", {}, "Results"), ol);
  }
  if (s.ranks) {
    parts.push(el("p", {}, "Final ranks: ", Object.entries(s.ranks).map(([p, r]) => `${p} ${ordinal(r)}`).join(", ")));
  }
  return box(["Deals (", T("end of a deal", "who loses"), ")"], "t-deal-box", ...parts);
}

export function render(s, opts = {}) {
  const trumps = s.trumps || {};
  const losses = s.losses || s.totals || {};
  const out = s.out || [];
  return tableShell(s, {
    title: "Svoi Kozyri",
    game: "svoi-kozyri",
    opts,
    dealText: `Deal ${s.deal ?? 0} of ${s.deals ?? 8}`,
    centre: [turnBox(s), pileBox(s)],
    side: [dealBox(s)],
    seat: (p) => ({
      totalLabel: "losses",
      totalText: (v) => String(v ?? 0),
      badges: [
        trumps[p] ? el("span", { class: "t-badge t-badge-trump t-own-trump", data: { suit: trumps[p] } }, suitBadge(trumps[p], [T("own trump", "trump"), ": "])) : null,
        out.includes(p) ? badge(`out (${ordinal(out.indexOf(p) + 1)})`, "muted") : null,
      ],
    }),
  });
}
