// A ruling's facts and scores as people read them, on the ruling's page and in the hearing room alike.
import { el } from "./dom.js";
import { cardName, cardRow } from "./cards.js";

/** Whether a fact is a list of cards (drawn as cards, named beside). */
export const isCards = (v) => Array.isArray(v) && v.length > 0 && v.every((c) => typeof c === "string" && cardName(c) !== c);

/** A fact's value in words: an absent value or an empty list is "none", a flag is
 * yes/no, a list reads as a list and a record as "key: value" pairs (never the JSON
 * spelling: "null", "[]", braces). */
export function words(v) {
  if (v === null || v === undefined || (Array.isArray(v) && !v.length)) return "none";
  if (typeof v === "boolean") return v ? "yes" : "no";
  if (Array.isArray(v)) return v.map(words).join(", ");
  if (typeof v === "object") {
    const entries = Object.entries(v);
    return entries.length ? entries.map(([k, x]) => `${k.replaceAll("_", " ")}: ${words(x)}`).join("; ") : "none";
  }
  return String(v);
}

/** The facts (or an effect) as a definition list; "none" when there are none. */
export function facts(obj) {
  const entries = Object.entries(obj || {});
  if (!entries.length) return el("span", { class: "muted" }, "none");
  return el("dl", { class: "facts" }, entries.flatMap(([k, v]) => [
    el("dt", {}, k.replaceAll("_", " ")),
    el("dd", { class: words(v) === "none" ? "muted" : null }, isCards(v)
      ? [cardRow(v, { small: true }), el("span", { class: "muted" }, v.map(cardName).join(", "))]
      : words(v)),
  ]));
}

/** Scores by player, signed: "ann +2, bob -1, cy -1". */
export const signed = (scores) => Object.entries(scores).map(([p, v]) => `${p} ${v >= 0 ? "+" : ""}${v}`).join(", ");
