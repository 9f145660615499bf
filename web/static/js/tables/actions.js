// A seat's moves, built from the legal shapes the API sends (engine/shapes.py): the
// player selects cards in the own hand (tap to select, tap again to drop) and confirms
// with one button per verb the selection makes legal ("Exchange 3 cards"); a bid is a
// number field limited to the legal range; a verb alone or a choice of a few words is
// a button each. Never the full list of commands (an exchange would be thousands).
import { cardElement, cardName, el } from "./common.js";

/** At most this many command controls on a page (cards to select included). */
export const MAX_CONTROLS = 60;

const LABELS = {
  draw: "Draw", take: "Take the discard", munt: "Munt", pass: "Pass", levu: "Levu", keep: "Keep",
  exchange: "Exchange", solo: "Solo", recruit: "Recruit", resign: "Resign", pickup: "Pick up", yield: "Yield",
  play: "Play", discard: "Discard", eltiri: "Eltiri", lay: "Lay", bid: "Bid", contract: "Contract",
  great: "Great", hold: "Hold", declare: "Declare",
};

export function verbLabel(verb) {
  return LABELS[verb] || verb.charAt(0).toUpperCase() + verb.slice(1);
}

function plural(n, one, many = `${one}s`) {
  return `${n} ${n === 1 ? one : many}`;
}

/** The fewest cards a shape takes: the server leaves out a field at its default (0). */
const fewest = (shape) => shape.count_min ?? 0;

/** Whether the selected cards (codes, in selection order) fit a cards shape. */
function fits(shape, picked) {
  if (picked.length < fewest(shape) || picked.length > shape.count_max) return false;
  const pool = [...shape.cards];
  for (const code of picked) {
    const i = pool.indexOf(code);
    if (i < 0) return false;
    pool.splice(i, 1);
  }
  return true;
}

/** The words of a cards shape's command for the selection (sides from the selects). */
function cardWords(shape, picked, sides) {
  const cards = shape.ordered ? picked : [...picked];
  if (!Object.keys(shape.sides || {}).length) return cards;
  return cards.map((c, i) => `${c}:${sides[i] || (shape.sides[c] || ["down"])[0]}`);
}

/** What the button of a cards shape says for the selection. */
function cardsLabel(shape, picked) {
  const verb = verbLabel(shape.verb);
  if (shape.count_max === 1 && picked.length === 1) return `${verb} ${cardName(picked[0])}`;
  if (shape.count_max === 1) return `${verb}: select a card`;
  if (!fits(shape, picked)) {
    const range = fewest(shape) === shape.count_max ? `${shape.count_max}` : `${fewest(shape)}–${shape.count_max}`;
    return `${verb}: select ${range} cards`;
  }
  if (picked.length === 0) return `${verb} no cards`;
  return `${verb} ${plural(picked.length, "card")}`;
}

/** Can this hand card be selected now (some cards shape offers it)? */
export function selectable(shapes, code) {
  return shapes.some((s) => s.kind === "cards" && s.cards.includes(code));
}

/** The most cards any shape takes (1: a new selection replaces the old). */
export function selectionLimit(shapes) {
  return Math.max(0, ...shapes.filter((s) => s.kind === "cards").map((s) => s.count_max));
}

/** One seat label per player ("Su") for a Hakamo declare choice: "bob (Su)". */
function choiceLabel(shape, word, state) {
  const seats = state.seats || {};
  const player = Object.keys(seats).find((p) => String(seats[p]).toLowerCase() === word.toLowerCase());
  if (player) return `${verbLabel(shape.verb)} ${player} (${seats[player]})`;
  return `${verbLabel(shape.verb)} ${word}`;
}

/**
 * The one command a click on ``code`` makes at once, or null (the card is selected
 * first): exactly one shape takes the card, and it takes exactly one card, laid no
 * particular way (a Svoi Kozyri or trick play, an Uxinjo discard no eltiri could take).
 */
export function directCommand(shapes, code) {
  const takers = shapes.filter((s) => s.kind === "cards" && s.cards.includes(code));
  if (takers.length !== 1) return null;
  const [shape] = takers;
  if (shape.count_max !== 1 || fewest(shape) !== 1 || Object.keys(shape.sides || {}).length) return null;
  return `${shape.verb} ${code}`;
}

/**
 * The own hand with selectable cards: {node, count} (count = controls drawn).
 * ``picked`` holds indices into ``hand``; ``onCard(i)`` is a click on card i (it plays
 * a card whose move is unambiguous, see ``directCommand``, or selects or drops it).
 * ``onDrag(command)`` starts dragging a card whose move is unambiguous (null: ended).
 */
export function handRow(hand, shapes, picked, onCard, player, onDrag = null) {
  const row = el("div", { class: "t-cards dock-hand", role: "group", tabindex: "-1",
    "aria-label": `Your hand (${player}): ${plural(hand.length, "card")}` });
  let count = 0;
  hand.forEach((code, i) => {
    const can = selectable(shapes, code);
    const on = picked.includes(i);
    const direct = can && !picked.length ? directCommand(shapes, code) : null;
    const label = direct ? `${verbLabel(direct.split(" ")[0])} ${cardName(code)}` : `${cardName(code)}${on ? " (selected)" : ""}`;
    const action = can ? { label, onClick: () => onCard(i) } : null;
    const node = cardElement(code, { action });
    node.dataset.index = String(i);
    if (can) {
      count += 1;
      node.classList.add("selectable");
      if (direct) {
        node.classList.add("direct");
        node.dataset.command = direct;
        if (onDrag) {
          node.draggable = true;
          node.addEventListener("dragstart", (e) => {
            e.dataTransfer.setData("text/plain", direct);
            e.dataTransfer.effectAllowed = "move";
            onDrag(direct);
          });
          node.addEventListener("dragend", () => onDrag(null));
        }
      } else {
        node.setAttribute("aria-pressed", on ? "true" : "false");
      }
      if (on) node.classList.add("selected");
    }
    row.append(node);
  });
  if (!hand.length) row.append(el("span", { class: "t-muted" }, "no cards"));
  if (count && count < hand.length) row.classList.add("some-selectable");
  return { node: row, count };
}

/**
 * The controls of every shape: {node, count}. ``submit(text)`` sends a command;
 * ``picked`` are the selected codes in selection order; ``budget`` the controls left.
 */
export function controls(shapes, { state, picked, submit, budget = MAX_CONTROLS, sides = [], onSide = () => {} }) {
  const box = el("div", { class: "legal", id: "legal", role: "group", "aria-label": "Your moves" });
  let count = 0;
  const oneClick = []; // verbs made by a click on a card (no button)
  const add = (node, n = 1) => {
    box.append(node);
    count += n;
  };
  for (const shape of shapes) {
    if (shape.kind === "plain") {
      add(el("button", { type: "button", class: "move", "data-command": shape.verb, onclick: () => submit(shape.verb) },
        verbLabel(shape.verb)));
    } else if (shape.kind === "number") {
      const input = el("input", { type: "number", min: shape.min, max: shape.max, step: 1, value: shape.min,
        inputmode: "numeric", id: `amount-${shape.verb}`, "aria-label": `${verbLabel(shape.verb)} (${shape.min} to ${shape.max})` });
      const button = el("button", { type: "submit", class: "move primary", "data-command": `${shape.verb} ${shape.min}` },
        `${verbLabel(shape.verb)} ${shape.min}`);
      const sync = () => {
        const n = Number(input.value);
        const ok = Number.isInteger(n) && n >= shape.min && n <= shape.max;
        button.disabled = !ok;
        button.dataset.command = ok ? `${shape.verb} ${n}` : "";
        button.textContent = ok ? `${verbLabel(shape.verb)} ${n}` : `${verbLabel(shape.verb)}: ${shape.min}–${shape.max}`;
      };
      input.addEventListener("input", sync);
      add(el("form", { class: "number-move", "data-verb": shape.verb, onsubmit: (e) => {
        e.preventDefault();
        sync();
        if (!button.disabled) submit(button.dataset.command);
      } }, el("label", { for: input.id }, `${verbLabel(shape.verb)} `, input),
      el("span", { class: "muted range" }, ` ${shape.min}–${shape.max} `), button), 2);
    } else if (shape.kind === "choice") {
      for (const word of shape.choices) {
        add(el("button", { type: "button", class: "move", "data-command": `${shape.verb} ${word}`,
          onclick: () => submit(`${shape.verb} ${word}`) }, choiceLabel(shape, word, state)));
      }
    } else if (shape.kind === "cards") {
      // a verb whose every card is played by one click needs no button of its own
      if (!picked.length && shape.cards.length && shape.cards.every((c) => directCommand(shapes, c))) {
        oneClick.push(verbLabel(shape.verb).toLowerCase());
        continue;
      }
      const ok = fits(shape, picked);
      const words = ok ? cardWords(shape, picked, sides) : [];
      const text = [shape.verb, ...words].join(" ");
      const group = el("span", { class: "cards-move", "data-verb": shape.verb });
      if (ok && Object.keys(shape.sides || {}).length) {
        picked.forEach((code, i) => {
          const allowed = shape.sides[code] || [];
          const select = el("select", { "aria-label": `${cardName(code)}: face up or down`, "data-side": String(i),
            onchange: (e) => onSide(i, e.target.value) },
          ...allowed.map((s) => el("option", { value: s, selected: (sides[i] || allowed[0]) === s }, `${cardName(code)} face ${s}`)));
          group.append(el("label", {}, i === 0 ? "upper " : "lower ", select));
          count += 1;
        });
      }
      group.append(el("button", { type: "button", class: `move${ok ? " primary" : ""}`, disabled: !ok,
        "data-verb": shape.verb, "data-command": ok ? text : null, onclick: () => submit(text) },
      cardsLabel(shape, picked)));
      if (!picked.length && shape.count_max > 1) {
        const hint = fewest(shape) === 0 ? `or select up to ${shape.count_max} cards in your hand`
          : shape.ordered ? `select ${shape.count_max} cards in your hand, in order (the first is the upper)`
            : `select ${fewest(shape)}–${shape.count_max} cards in your hand`;
        group.append(el("span", { class: "muted hint" }, hint));
      }
      add(group);
    } else {
      for (const text of shape.commands) {
        if (count >= budget) {
          box.append(el("span", { class: "muted" }, "… more moves than fit here: use the command line"));
          break;
        }
        add(el("button", { type: "button", class: "move", "data-command": text, onclick: () => submit(text) }, text));
      }
    }
  }
  if (oneClick.length) {
    box.append(el("span", { class: "muted hint one-click" },
      `Click a card in your hand to ${oneClick.join(" or ")} it, or drag it onto the table.`));
  }
  return { node: box, count };
}
