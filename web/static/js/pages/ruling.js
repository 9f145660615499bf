// One ruling: the facts, the rule, its effect and status, the dispute history, and the
// table as it stood when the ruling was made, with a link to that step of the replay.
// A player of the match appeals it here with their seat token (the one their table was
// opened with in this tab, or given as #token=… or typed), a TD with a TD token: each
// person once, while the ruling is undecided (the README's audit section).
import {
  api, ApiError, el, errorBox, formatTime, GAMES, gameTitle, page, ruleLink, show, storedToken, storeToken, takeTokenFromFragment,
} from "../api.js";
import { facts, signed, words } from "../facts.js";
import { renderTable } from "../tables/index.js";

/** The table drawn as the replay draws it (compact: every hand small), so the two read alike. */
function compact(table) {
  table.classList.add("t-compact");
  return table;
}

/** A seat as the CLI says it too: the game's seat label (Or, Su, …). */
function seatLabel(r) {
  const game = GAMES.find((g) => g.name === r.game);
  return (game && game.seats[r.seat]) || String(r.seat + 1);
}

const { main, data } = page();
takeTokenFromFragment(data.match);

/** A voided transfer in words: who would have paid whom, how much, why, and where. */
function voided(v) {
  const head = v.payer !== undefined && v.payee !== undefined && v.amount !== undefined
    ? `${v.payer} would have paid ${v.payee} ${v.amount}${v.reason ? ` (${v.reason})` : ""}`
    : words(v);
  return v.position !== undefined && v.payer !== undefined ? `${head} · event #${v.position}` : head;
}

/** The hypotheticals made from the ruled deal, with their results (readable by anyone
 * once the deal has ended; a TD's only while it runs). */
async function hypotheticals(r, token) {
  let rows;
  try {
    rows = await api(`/audit/${encodeURIComponent(r.match)}/${encodeURIComponent(r.ruling_id)}/hypotheticals`, { token });
  } catch (err) {
    if (!(err instanceof ApiError) || err.status !== 403) throw err;
    return el("p", { class: "muted", id: "hypotheticals" }, "Hypotheticals are TD material while the deal runs.");
  }
  if (!rows.length) return el("p", { class: "muted", id: "hypotheticals" }, "None made from this deal.");
  return el("ul", { id: "hypotheticals" }, rows.map((h) => {
    const roll = h.last_rollout;
    const means = roll ? Object.entries(roll.players).map(([p, s]) => `${p} mean ${s.mean >= 0 ? "+" : ""}${s.mean.toFixed(2)}`).join(", ") : "";
    return el("li", {}, el("code", {}, h.hypothetical), ` from step ${h.step}`, h.label ? ` “${h.label}”` : "",
      ` · ${h.moves} ${h.moves === 1 ? "move" : "moves"} · `, h.deal_scores ? `settled: ${signed(h.deal_scores)}` : "in play",
      roll ? ` · ${roll.n} rollouts (${roll.bots} bots, unseen cards ${roll.hidden === "actual" ? "as they were" : "dealt afresh"}`
        + `${h.rollouts > 1 ? `; the latest of ${h.rollouts} runs` : ""}): ${means}` : "");
  }));
}

/** Who holds ``token``: {role, player, label} (null for none, or one this server refuses). */
async function holder(token) {
  if (!token) return null;
  try {
    return await api("/me", { token });
  } catch {
    return null;
  }
}

/** The appeal form: a seat of the ruling's match appeals as its player, a TD under its label. */
async function appealBox(r, token) {
  const h2 = el("h2", { id: "appeal" }, "Appeal");
  if (r.status === "decision") return [h2, el("p", { class: "muted" }, "A decision without a penalty is not appealable.")];
  if (r.status !== "standing" && r.status !== "appealed") {
    return [h2, el("p", { class: "muted", id: "appeal-closed" }, `Decided (${r.status}): the appeal is closed.`)];
  }
  const me = await holder(token);
  const mine = me && ((me.role === "seat" && me.match === r.match) || me.role === "td");
  const who = !mine ? null : me.role === "td" ? `TD ${me.label || "td"}` : me.player;
  const reason = el("textarea", { id: "appeal-reason", rows: 3, cols: 60, maxlength: 2000, required: true,
    "aria-describedby": "appeal-help" });
  const tokenInput = mine ? null : el("input", { type: "password", id: "appeal-token", autocomplete: "off", required: true, size: 36 });
  const said = el("div", { id: "appeal-message", "aria-live": "assertive" });
  const form = el("form", { id: "appeal-form", class: "appeal", onsubmit: async (e) => {
    e.preventDefault();
    said.replaceChildren();
    const using = mine ? token : tokenInput.value.trim();
    try {
      await api(`/audit/${encodeURIComponent(r.match)}/${encodeURIComponent(r.ruling_id)}/appeal`, {
        token: using, method: "POST", body: { reason: reason.value.trim() },
      });
      if (!mine) storeToken(r.match, using);
      await load(`Appeal recorded${who ? ` for ${who}` : ""}: a TD decides it.`);
    } catch (err) {
      said.replaceChildren(errorBox(err));
    }
  } },
  mine ? el("p", {}, `Appealing as ${who}.`)
    : el("p", {}, el("label", { for: "appeal-token" }, "Your seat token "), tokenInput, " ",
      el("span", { class: "muted" }, "(the token of your seat link: it stays in this tab and is sent only to this server)")),
  el("p", {}, el("label", { for: "appeal-reason" }, "Why the ruling is wrong"), el("br"), reason),
  el("p", { class: "muted", id: "appeal-help" }, "Each player of the match (and a TD) may appeal once while the ruling is undecided; ",
    "every appeal is recorded with its reason, and one TD decision answers them all."),
  el("p", {}, el("button", { type: "submit", class: "primary", id: "appeal-send" }, "Appeal the ruling")), said);
  return [h2, form];
}

async function load(notice = null) {
  const r = await api(`/audit/${encodeURIComponent(data.match)}/${encodeURIComponent(data.ruling)}`);
  const token = storedToken(r.match);
  let replay = null;
  let replayError = null;
  try {
    replay = await api(`/matches/${encodeURIComponent(r.match)}/replay?deal=${r.deal}`, { token });
  } catch (err) {
    if (!(err instanceof ApiError)) throw err;
    replayError = err;
  }
  const k = replay ? replay.steps.findIndex((s) => s.event.position === r.position) + 1 : 0;
  const link = `/ui/replay/${r.match}?${new URLSearchParams({ deal: r.deal, step: k || 1, view: replay ? replay.view : "all" })}`;
  let table = null;
  if (replay && k) {
    const before = k > 1 ? replay.steps[k - 2] : null;
    table = el("section", { "aria-labelledby": "at-ruling" },
      el("h2", { id: "at-ruling" }, before ? "The table when the ruling was made" : "The table after the ruling"),
      el("p", { class: "muted" }, `${before ? `Before step ${k}` : `After step ${k}`} of deal ${r.deal}, ${replay.ended ? "every hand shown" : `seen as ${replay.view}`}.`),
      el("p", { class: "now" }, el("span", { class: "where" }, `Step ${k} · #${r.position}`), replay.steps[k - 1].description),
      compact(renderTable((before || replay.steps[k - 1]).state, { smallHands: true })));
  }
  const hypos = await hypotheticals(r, token);
  const appeal = await appealBox(r, token);
  show(main,
    el("h1", {}, `Ruling ${r.id}`),
    notice ? el("p", { class: "note", role: "status", id: "notice" }, notice) : null,
    el("p", {}, `${gameTitle(r.game)} · match `, el("a", { href: `/ui/replay/${r.match}` }, r.match),
      ` · deal ${r.deal} · ${r.player} (seat ${seatLabel(r)}) · recorded ${formatTime(r.recorded_at)}`),
    el("p", {}, el("a", { href: link, class: "button", id: "open-replay" }, "Open the replay at this step")),
    el("h2", {}, "Ruling"),
    el("dl", { class: "facts", id: "ruling-facts" },
      el("dt", {}, "rule"), el("dd", {}, ruleLink(r.rule, r.game)),
      el("dt", {}, "type"), el("dd", {}, r.type),
      el("dt", {}, "status"), el("dd", { id: "ruling-status" }, r.status),
      r.series ? [el("dt", {}, "series"), el("dd", {}, el("a", { href: `/ui/series/${r.series}` }, r.series),
        r.series_effect ? ` (${r.series_effect})` : "")] : null,
      r.lifted_position ? [el("dt", {}, "lifted by event"), el("dd", {}, `#${r.lifted_position}`)] : null),
    el("h2", {}, "Facts"),
    facts(r.facts),
    el("h2", {}, "Effect"),
    facts(r.effect),
    r.voided && r.voided.length ? [el("h2", {}, "Voided"), el("ul", { id: "voided" }, r.voided.map((v) => el("li", {}, voided(v))))] : null,
    el("h2", {}, "Dispute history"),
    r.history.length
      ? el("ol", { class: "history", id: "history" }, r.history.map((h) => el("li", {},
          el("strong", {}, h.kind), ` by ${h.by} · ${formatTime(h.at)} · #${h.position}: ${h.reason}`)))
      : el("p", { class: "muted", id: "history" }, "Not appealed."),
    appeal,
    el("h2", {}, "Hypotheticals"),
    hypos,
    el("p", {}, "The appeal hearing: ", el("a", { href: `/ui/hearing/${r.match}/${r.ruling_id}`, id: "hearing-link" }, "the hearing room"),
      " (a TD opens it with their token, ", el("code", {}, "#token=…"), "; others follow the link the TD shares)."),
    table,
    replayError ? errorBox(replayError) : null,
  );
  if (location.hash === "#appeal" || notice) document.getElementById(notice ? "notice" : "appeal").scrollIntoView();
}

load().catch((err) => show(main, el("h1", {}, `Ruling ${data.match}/${data.ruling}`), errorBox(err)));
