// /ui/cards: every card of both decks as drawn, each with its spoken name as a caption.
// The Jx deck holds 38 cards but only 36 different ones (PJ and AJ come twice, and
// the copies are identical), so the gallery shows each different card once and says
// "×2" under PJx and AJx.
import { cardElement, cardName, FRENCH_DECK, JX_DECK, SUIT_NAMES } from "../cards.js";
import { el } from "../dom.js";

function figure(code, note = "", small = false) {
  const fig = el("figure", { class: "t-gallery-card" });
  fig.append(cardElement(code, { small }));
  fig.append(el("figcaption", {}, cardName(code) + note));
  return fig;
}

function gallerySection(id, title, intro, groups) {
  const section = el("section", { class: "t-gallery", "aria-labelledby": id });
  section.append(el("h2", { id }, title));
  if (intro) section.append(el("p", { class: "t-note" }, intro));
  for (const [heading, figures] of groups) {
    if (heading) section.append(el("h3", {}, heading));
    const list = el("div", { class: "t-gallery-grid", role: "list" });
    for (const f of figures) {
      f.setAttribute("role", "listitem");
      list.append(f);
    }
    section.append(list);
  }
  return section;
}

function render(main) {
  main.replaceChildren();
  main.append(el("h1", {}, "Cards"));
  main.append(el("p", { class: "t-note" },
    "Every card as the tables draw it, with the name a screen reader speaks. Jx colours each have their own " +
    "shape as well (red ● circle, green ▲ triangle, blue ■ square), so no card relies on colour alone."));

  const distinct = [...new Set(JX_DECK)];
  const copies = (code) => JX_DECK.filter((c) => c === code).length;
  const jxGroups = [
    ["Red", distinct.filter((c) => c[0] === "R")],
    ["Green", distinct.filter((c) => c[0] === "G")],
    ["Blue", distinct.filter((c) => c[0] === "B")],
    ["Special cards", distinct.filter((c) => c === "C" || c === "PJ" || c === "AJ")],
  ].map(([h, codes]) => [h, codes.map((c) => figure(c, copies(c) > 1 ? ` (×${copies(c)})` : ""))]);
  main.append(gallerySection("jx-deck", "Jx deck (Uxinjo, Hakamo)",
    `${JX_DECK.length} cards, ${distinct.length} different: PJx and AJx come twice, and the two copies are identical.`,
    jxGroups));

  const frenchGroups = "SHDC".split("").map((s) => [
    SUIT_NAMES[s][0].toUpperCase() + SUIT_NAMES[s].slice(1),
    FRENCH_DECK.filter((c) => c[1] === s).map((c) => figure(c)),
  ]);
  main.append(gallerySection("french-deck", "French deck (Laugavatnsmanni, Svoi Kozyri)",
    "52 cards; Svoi Kozyri plays with the 36 from ace down to 6.", frenchGroups));

  main.append(gallerySection("other-cards", "Face down and small", "A card nobody may see is drawn as its back. " +
    "Small cards (used for other players' hands and piles) follow.", [
    ["Back", [figure("??")]],
    ["Small", ["R7", "GX", "BV", "C", "PJ", "AJ", "TH", "QS", "AD", "6C", "??"].map((c) => {
      const f = el("figure", { class: "t-gallery-card t-gallery-small" });
      f.append(cardElement(c, { small: true }));
      f.append(el("figcaption", {}, "small " + cardName(c)));
      return f;
    })],
  ]));
}

const main = document.getElementById("main");
if (main) render(main);
