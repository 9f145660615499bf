// The games' own words (Munt, Levu, Kasxetoj, Manni, …) linked to the rules section that
// defines them: /ui/rules/GAME#ANCHOR, the anchor derived from the section's label as
// app/rulebook.py's anchor_of does (a test checks every entry against the rules pages).
import { el } from "./dom.js";

/** game -> word (lower case) -> [the section's label, what the word means in a few words]. */
export const TERMS = {
  uxinjo: {
    munt: ["2.3", "declaring a winning hand"],
    "claim window": ["2.3", "the moment the other two may claim a discard"],
    levu: ["4.2", "raising the points needed, in the first turn"],
    eltiri: ["3.1", "taking a Jx card out of the hand"],
    punktobio: ["2.1", "the marker between two players"],
    finito: ["2.1", "a marker at ±6: the match ends"],
    penalty: ["6.1", "a foul munt"],
    appeal: ["6.2", "asking a TD to review a ruling"],
  },
  hakamo: {
    auction: ["1", "bidding the game value"],
    deklaristo: ["1", "the highest bidder, who sets trumps"],
    gv: ["6", "the game value"],
    kasxetoj: ["2", "the two spare cards that set trumps and order"],
    inversa: ["2", "a colour whose numbers turn round"],
    kunulo: ["3", "the Deklaristo's partner"],
    declaration: ["4", "naming who will be Hakamisto"],
    hakamisto: ["Terms", "the highest count, at least 13"],
    malhakama: ["4", "declaring that nobody will be Hakamisto"],
    matisto: ["Terms", "a player who cannot play a card"],
    tricks: ["5", "the nine tricks"],
    centro: ["Cards and seats", "the C card, which copies another"],
  },
  laugavatnsmanni: {
    contract: ["2", "nullo, grand or a trump suit, each once per match"],
    nullo: ["2", "avoid tricks"],
    grand: ["2", "win tricks with no trump"],
    great: ["3", "a call to take 14 of the 16 tricks"],
    manni: ["4", "the four spare cards, face down"],
    tricks: ["4", "the sixteen tricks"],
  },
  "svoi-kozyri": {
    "own trump": ["Cards, players, trumps", "each player's own trump suit"],
    beat: ["Play", "a higher card of the suit, or an own trump"],
    "pick up": ["Play", "taking cards from the pile instead of beating"],
    "extra card": ["Play", "one more card after beating"],
    "free play": ["Play", "any card after a beat with the last card"],
    "end of a deal": ["End of a deal", "who loses the deal"],
  },
};

/** The words a verb's button stands for, where the verb is a game word (munt -> Munt). */
export const VERB_TERMS = {
  uxinjo: { munt: "munt", levu: "levu", eltiri: "eltiri" },
  hakamo: { bid: "auction", keep: "kasxetoj", exchange: "kasxetoj", lay: "kasxetoj", solo: "kunulo", recruit: "kunulo",
    resign: "kunulo", declare: "declaration", play: "tricks" },
  laugavatnsmanni: { contract: "contract", great: "great", hold: "great", yield: "great", exchange: "manni" },
  "svoi-kozyri": { pickup: "pick up" },
};

/** ``2.3`` -> ``s2-3``; ``Cards and seats`` -> ``s-cards-and-seats`` (rulebook.anchor_of). */
export function anchorOf(label) {
  const words = String(label).toLowerCase().match(/[a-z0-9]+/g) || [];
  return (/^\d/.test(label) ? "s" : "s-") + words.join("-");
}

/** The rules page address of a game word, or null when the game has no such word. */
export function termHref(game, word) {
  const entry = (TERMS[game] || {})[String(word).toLowerCase()];
  return entry ? `/ui/rules/${encodeURIComponent(game)}#${anchorOf(entry[0])}` : null;
}

/**
 * ``text`` (default: the word) as a link to the word's rules section, titled with its
 * section and meaning; plain text when the game has no such word.
 */
export function termLink(game, word, text = word) {
  const entry = (TERMS[game] || {})[String(word).toLowerCase()];
  if (!entry) return document.createTextNode(text);
  return el("a", { class: "term", href: termHref(game, word), title: `${word}: ${entry[1]} (rules §${entry[0]})`,
    data: { term: String(word).toLowerCase() } }, text);
}
