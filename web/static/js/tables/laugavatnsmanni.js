// Laugavatnsmanni: three players, six contracts each per match, great calls, the
// four-card Manni (face down) and sixteen tricks.
import { badge, box, cardRow, el, facts, HIDDEN, playsList, plural, signed, suitBadge, tableShell, termLink } from "./common.js";

const T = (word, text) => termLink("laugavatnsmanni", word, text);

const CONTRACTS = ["nullo", "grand", "spades", "hearts", "diamonds", "clubs"];
const CONTRACT_SUIT = { spades: "S", hearts: "H", diamonds: "D", clubs: "C" };

function contractText(c) {
  if (!c) return "–";
  return CONTRACT_SUIT[c] ? suitBadge(CONTRACT_SUIT[c]) : c === "nullo" ? "Nullo (avoid tricks)" : "Grand (no trump)";
}

/** What a player aims for this deal: [word, number] or null. */
function goal(s, p) {
  if (!s.contract || !s.declarer) return null;
  const decl = s.declarer === p;
  const great = s.great_call && s.great_call.great;
  if (great) return ["target", decl ? 14 : 1];
  if (s.contract === "nullo") return ["limit", decl ? 4 : 6];
  return ["target", decl ? 8 : 4];
}

function contractBox(s) {
  const g = s.great_call || {};
  const calls = g.calls || [];
  if (!s.chooser && !s.contract) {
    const ld = s.last_deal;
    const text = s.status === "finished" ? "The match is over." : ld ? "Between deals." : "No deal yet.";
    return box(T("contract", "Contract"), "t-contract", el("p", { class: "t-muted" }, text));
  }
  const rows = [
    ["chooser", s.chooser],
    ["chosen", s.chosen_contract ? (s.chosen_contract !== s.contract ? contractText(s.chosen_contract) : null) : "not yet"],
    ["contract", s.contract ? el("strong", { class: "t-contract-value" }, g.great ? "great " : "", contractText(s.contract)) : null],
    ["trump", s.contract ? (s.trump ? suitBadge(s.trump) : "no trump") : null],
    ["declarer", s.declarer ? el("strong", {}, s.declarer) : null],
  ];
  const parts = [facts(rows)];
  if (calls.length || s.phase === "great" || s.phase === "hold") {
    const list = el("ol", { class: "t-bids", "aria-label": "Great calls" });
    for (const c of calls) list.append(el("li", {}, el("strong", {}, c.player), " calls great ", contractText(c.contract)));
    parts.push(el("h4", {}, T("great", "Great"), " calls"), calls.length ? list : el("p", { class: "t-muted" }, "none yet"));
    if (g.great) parts.push(el("p", {}, badge(T("great", "great contract"), "warn"), g.held ? ` ${s.chooser} held` : " the last caller plays it"));
  }
  return box(T("contract", "Contract"), "t-contract", ...parts);
}

function manniBox(s) {
  const count = s.manni_count ?? 0;
  const parts = [];
  const cards = Array.isArray(s.manni) ? s.manni : Array.from({ length: count }, () => HIDDEN);
  parts.push(el("p", { class: "t-manni-count" }, `${plural(count, "card")}, face down on the table`));
  if (cards.length) parts.push(cardRow(cards, { small: true }));
  if (s.exchanged !== null && s.exchanged !== undefined) {
    parts.push(el("p", {}, s.exchanged ? `${s.declarer || "The declarer"} exchanged ${plural(s.exchanged, "card")}.` : `${s.declarer || "The declarer"} kept the hand (no exchange).`));
  }
  const discards = Array.isArray(s.discards) ? s.discards
    : (s.exchanged ? Array.from({ length: s.exchanged }, () => HIDDEN) : []);
  if (discards.length) {
    parts.push(el("div", { class: "t-discards" }, el("p", { class: "t-label" },
      `Exchange discards (out of play${Array.isArray(s.discards) ? "" : ", face down"}):`), cardRow(discards, { small: true })));
  }
  return box(T("manni", "Manni"), "t-manni", ...parts);
}

function trickBox(s) {
  if (s.phase !== "play" && !(s.trick || []).length) return null;
  const number = (s.tricks_played ?? 0) + 1;
  return box(`Trick ${number} of 16`, "t-trick",
    playsList(s.trick || [], `Trick ${number}: cards played`, { empty: `${s.leader || "the leader"} to lead` }));
}

function lastTrickBox(s) {
  const t = s.last_trick;
  if (!t) return null;
  const plays = (t.cards || []).map((c) => ({
    player: c.player, card: c.card, note: c.player === t.winner ? "wins" : null, cls: c.player === t.winner ? "t-winner" : "",
  }));
  return box("Last trick", "t-last-trick", playsList(plays, "Last trick: cards played", { small: true }),
    el("p", { class: "t-trick-result" }, `${t.winner} takes it`));
}

function lastDealBox(s) {
  const d = s.last_deal;
  if (!d) return null;
  const table = el("table", { class: "t-history" },
    el("caption", {}, `Deal ${d.deal}: `, d.great ? "great " : "", contractText(d.contract), ` by ${d.declarer}`),
    el("thead", {}, el("tr", {}, el("th", { scope: "col" }, "player"), el("th", { scope: "col" }, "tricks"), el("th", { scope: "col" }, "score"))),
    el("tbody", {}, ...Object.keys(d.tricks || {}).map((p) => el("tr", {}, el("th", { scope: "row" }, p),
      el("td", {}, String(d.tricks[p])), el("td", {}, signed((d.scores || {})[p]))))));
  return box("Last deal", "t-last-deal", el("div", { class: "t-history-wrap" }, table));
}

function matchBox(s) {
  return box("Match", "t-deal-box", facts([
    ["deal", `${s.deal ?? 0} of at most ${s.max_deals ?? 18}`],
    ["ends at", `a total of ${s.target_points ?? 10}`],
    ["tricks played", s.phase === "play" || s.phase === "scoring" ? `${s.tricks_played ?? 0} of 16` : null],
    ["next dealer", s.next_dealer],
    ["end", s.end ? String(s.end) : null],
  ]));
}

function contractsList(s, p) {
  const used = (s.used_contracts || {})[p] || [];
  const ul = el("ul", { class: "t-contracts", "aria-label": `${p}'s contracts` });
  for (const c of CONTRACTS) {
    const isUsed = used.includes(c);
    ul.append(el("li", { class: isUsed ? "t-used" : "t-unused" },
      el("span", { class: "t-contract-name" }, c), el("span", { class: "t-visually-hidden" }, isUsed ? " (used)" : " (left)"),
));
  }
  return el("div", { class: "t-contracts-wrap" },
    el("p", { class: "t-label" }, `Contracts used (struck out): ${used.length} of 6`), ul);
}

export function render(s, opts = {}) {
  const tricks = s.tricks || {};
  const greatUsed = (s.great_call || {}).used || {};
  return tableShell(s, {
    title: "Laugavatnsmanni",
    game: "laugavatnsmanni",
    opts,
    dealText: `Deal ${s.deal ?? 0} of at most ${s.max_deals ?? 18}`,
    centre: [contractBox(s), trickBox(s), lastTrickBox(s), s.phase === "exchange" ? manniBox(s) : null],
    side: [s.phase === "exchange" ? null : manniBox(s), lastDealBox(s), matchBox(s)],
    seat: (p) => {
      const gl = goal(s, p);
      return {
        badges: [
          s.chooser === p ? badge("chooser", "info") : null,
          s.declarer === p ? badge(s.great_call && s.great_call.great ? T("great", "great declarer") : "declarer", "role") : null,
          greatUsed[p] ? badge("great call used", "muted") : null,
        ],
        facts: [["tricks", el("span", { class: "t-tricks" }, String(tricks[p] ?? 0), gl ? ` (${gl[0]} ${gl[1]})` : "")]],
        extras: [contractsList(s, p)],
      };
    },
  });
}
