// Hakamo: four players, the auction, the Kasxetoj (trump and special order), the
// Kunulo, the declaration and up to nine tricks.
import {
  badge, box, captioned, cardName, cardRow, colourBadge, el, facts, HIDDEN, playsList, plural, signed, tableShell, termLink,
} from "./common.js";

const T = (word, text) => termLink("hakamo", word, text);

const BIDDING = new Set(["auction", "kasxetoj", "lay", "kunulo", "shares", "no_kunulo", "declaration", "passed_out"]);

const END_TEXT = {
  resigned: "the Deklaristo resigned",
  "lead-matatis": "the player due to lead is a Matisto: trick-taking stopped",
  "all-cancelled": "every card of a trick was cancelled: trick-taking stopped",
  "nine-tricks": "all nine tricks played",
};

function trumpBadge(s, label = "Trump: ") {
  const t = s.trump || {};
  if (t.mode === "colour" && t.colour) return el("span", { class: "t-trump" }, label, colourBadge(t.colour));
  if (t.mode === "jx") return el("span", { class: "t-trump" }, label, "set each trick by the first other colour (upper card is a Jx)");
  return el("span", { class: "t-trump t-trump-none" }, label ? "No trump" : "none");
}

function inversaBadges(s) {
  const inv = s.inversa || [];
  if (!inv.length) return el("span", { class: "t-inversa t-inversa-none" }, "Normal order");
  return el("span", { class: "t-inversa" }, T("inversa", "Inversa"), ": ",
    ...inv.map((c) => el("span", { class: "t-badge t-badge-inversa" }, colourBadge(c, " inversa"))));
}

/** The Kasxetoj are laid and the laying is over: their box goes below the seats, what they set into the contract's. */
function laidOut(s) {
  return !!(s.kasxetoj && s.kasxetoj.upper !== null && s.kasxetoj.kept !== null && s.phase !== "lay");
}

function contractBox(s) {
  if (!s.deklaristo) {
    let text = "No contract this deal yet.";
    if (s.phase === "auction") text = "The auction is on.";
    else if (s.status === "finished") text = "The match is over.";
    else if (s.phase === "waiting_deal" && s.deal) text = "Between deals.";
    return box("Contract", "t-contract", el("p", { class: "t-muted" }, text));
  }
  let partner = null;
  if (s.kunulo) partner = `${s.kunulo} (share ${s.share})`;
  else if (s.solo) partner = "none — solo";
  return box("Contract", "t-contract", facts([
    ["contract (GV bid)", el("strong", { class: "t-contract-value" }, String(s.contract))],
    [T("deklaristo", "Deklaristo"), el("strong", {}, s.deklaristo)],
    [T("kunulo", "Kunulo"), partner],
    [["declared ", T("hakamisto", "Hakamisto")], s.declared ? (s.declared === "malhakama" ? "malhakama (nobody)" : s.declared) : null],
    ["resigned", s.resigned ? "yes" : null],
    // once the Kasxetoj are laid, what they set (their box is below the seats during the tricks)
    ["trump", laidOut(s) ? trumpBadge(s, "") : null],
    ["order", laidOut(s) ? inversaBadges(s) : null],
  ]));
}

function auctionBox(s) {
  const a = s.auction || {};
  const bids = a.bids || [];
  const ka = s.kunulo_auction || {};
  const shares = ka.bids || [];
  const list = el("ol", { class: "t-bids", "aria-label": "Bids in order" });
  for (const b of bids) {
    list.append(el("li", {}, el("strong", {}, b.player), " ", b.bid === null ? "pass" : `bids ${b.bid}`));
  }
  const parts = [
    bids.length ? list : el("p", { class: "t-muted" }, "No bids yet."),
    a.high ? el("p", {}, `High bid: ${a.high} by ${a.high_bidder}`) : null,
  ];
  if (shares.length || s.phase === "shares") {
    const sl = el("ol", { class: "t-bids", "aria-label": "Kunulo share bids in order" });
    for (const b of shares) sl.append(el("li", {}, el("strong", {}, b.player), " ", b.share === null ? "pass" : `share ${b.share}`));
    parts.push(el("h4", {}, T("kunulo", "Kunulo"), " auction"), shares.length ? sl : el("p", { class: "t-muted" }, "No share bids yet."),
      ka.low ? el("p", {}, `Lowest share: ${ka.low} by ${ka.low_bidder}`) : null,
      ka.max_first && !shares.length ? el("p", { class: "t-note" }, `First share bid at most ${ka.max_first}.`) : null);
  }
  return box(T("auction", "Auction"), "t-auction", ...parts);
}

function kasxetojBox(s) {
  const k = s.kasxetoj;
  if (!k) return null;
  const parts = [];
  if (k.upper === null && k.lower === null) {
    parts.push(el("p", {}, `In ${s.deklaristo || "the Deklaristo"}'s hand (to lay two back).`));
  } else {
    const row = el("div", { class: "t-stack-row" });
    for (const [which, code, up] of [["upper", k.upper, k.upper_up], ["lower", k.lower, k.lower_up]]) {
      const seenDown = !up && code && code !== HIDDEN;
      const caption = el("span", {}, el("strong", {}, which), ": ", up ? "face up" : "face down",
        seenDown ? [el("br"), `(${cardName(code)}, not public)`] : null);
      row.append(captioned(code || HIDDEN, caption, { cls: `t-kasxeto t-kasxeto-${which}${up ? " t-face-up" : " t-face-down"}` }));
    }
    parts.push(row);
  }
  if (k.kept) parts.push(el("p", {}, badge("kept", "info"), " unseen by everyone; both count as face down"));
  if (k.kept === null || k.upper === null) {
    parts.push(el("p", { class: "t-muted" }, "Trump and order are set once the Kasxetoj are laid."));
  } else {
    parts.push(el("p", { class: "t-badges" }, trumpBadge(s)), el("p", { class: "t-badges" }, inversaBadges(s)));
  }
  if (s.c_copies) parts.push(el("p", {}, `Centro plays as ${cardName(s.c_copies)}.`));
  return box(T("kasxetoj", "Kasxetoj"), "t-kasxetoj", ...parts);
}

function trickBox(s) {
  const t = s.trick;
  if (!t) return null;
  const plays = (t.plays || []).map((p) => ({
    player: p.player,
    card: p.card,
    note: p.as && p.as !== p.card ? `as ${cardName(p.as)}` : null,
  }));
  return box(`Trick ${t.number}`, "t-trick",
    facts([["leader", t.leader], ["lead colour", t.lead ? colourBadge(t.lead) : "none yet"]]),
    playsList(plays, `Trick ${t.number}: cards played`, { empty: `${t.leader} to lead` }));
}

function lastTrickBox(s) {
  const t = s.last_trick;
  if (!t) return null;
  const plays = (t.plays || []).map((p) => ({
    player: p.player,
    card: p.card,
    note: [p.as && p.as !== p.card ? `as ${cardName(p.as)}` : null,
      p.cancelled ? "cancelled" : (p.player === t.winner ? "wins" : null)].filter(Boolean).join(", ") || null,
    cls: p.cancelled ? "t-cancelled" : (p.player === t.winner ? "t-winner" : ""),
  }));
  return box(`Last trick (${t.number})`, "t-last-trick",
    t.lead ? facts([["led by", t.leader], ["lead colour", colourBadge(t.lead)]]) : null,
    playsList(plays, `Trick ${t.number}: cards played`, { small: true }),
    el("p", { class: "t-trick-result" }, t.winner ? `${t.winner} takes it (+${t.points})` : "every card cancelled"));
}

function dealBox(s) {
  const cancelled = s.cancelled || [];
  const matistos = s.matistos || [];
  return box("This deal", "t-deal-box",
    facts([
      ["deals counted", `${s.deals_counted ?? 0} of ${s.deals_in_match ?? 8}`],
      ["tricks played", String(s.tricks_played ?? 0)],
      ["redeal", s.redeal ? "yes (all four passed)" : null],
      [T("matisto", "Matistos"), matistos.length ? matistos.join(", ") : null],
      ["next dealer", s.next_dealer],
      ["end", s.end ? (END_TEXT[s.end] || s.end) : null],
      ["winner", s.winner ? s.winner.join(", ") : null],
    ]),
    cancelled.length ? el("div", {}, el("p", { class: "t-label" }, `Cancelled (taken by nobody): ${cancelled.length}`),
      cardRow(cancelled, { small: true })) : null,
    (s.mati_cards || []).length ? el("div", {}, el("p", { class: "t-label" }, "Matisto's shown hand:"),
      cardRow(s.mati_cards, { small: true })) : null);
}

function historyTable(s) {
  const rows = s.history || [];
  if (!rows.length) return null;
  const players = s.players || [];
  const table = el("table", { class: "t-history" },
    el("caption", {}, "Scores by deal"),
    el("thead", {}, el("tr", {}, el("th", { scope: "col" }, "deal"), ...players.map((p) => el("th", { scope: "col" }, p)))),
    el("tbody", {}, ...rows.map((r, i) => el("tr", {}, el("th", { scope: "row" }, String(i + 1)),
      ...players.map((p) => el("td", {}, signed(r[p] ?? 0)))))));
  return el("div", { class: "t-history-wrap" }, table);
}

export function render(s, opts = {}) {
  const counts = s.counts || {};
  const taken = s.taken || {};
  const matistos = s.matistos || [];
  return tableShell(s, {
    title: "Hakamo",
    game: "hakamo",
    opts,
    dealText: `Deal ${s.deal ?? 0} (${s.deals_counted ?? 0} of ${s.deals_in_match ?? 8} counted)`,
    centre: BIDDING.has(s.phase)
      ? [auctionBox(s), contractBox(s), laidOut(s) ? null : kasxetojBox(s)]
      : [trickBox(s), lastTrickBox(s), contractBox(s)],
    side: BIDDING.has(s.phase) ? [laidOut(s) ? kasxetojBox(s) : null, dealBox(s)] : [kasxetojBox(s), auctionBox(s), dealBox(s)],
    after: [historyTable(s)],
    seat: (p) => {
      const takenCards = taken[p] || [];
      return {
        badges: [
          s.deklaristo === p ? badge(T("deklaristo", "Deklaristo"), "role") : null,
          s.kunulo === p ? badge(T("kunulo", `Kunulo (share ${s.share})`), "role") : null,
          matistos.includes(p) ? badge(T("matisto", "Matisto"), "warn") : null,
          s.declared === p ? badge(T("hakamisto", "declared Hakamisto"), "info") : null,
        ],
        facts: [["count", `${counts[p] ?? 0} (${plural(takenCards.length, "card")} taken)`]],
        extras: [takenCards.length ? el("details", { class: "t-taken" },
          el("summary", {}, `Taken cards (${takenCards.length})`), cardRow(takenCards, { small: true })) : null],
      };
    },
  });
}
