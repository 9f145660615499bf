// renderTable(state, opts): the table of any kartludo game, from `kartludo state --json`
// (GET /matches/{id}/state) in any viewer's view. opts.actionFor(code, player) → {label,
// onClick} | null turns the cards of a shown hand into buttons (the live seat table);
// opts.bottom names the player whose seat is drawn at the bottom (default: the viewer).
// Each game draws its table in its own module (GET /games names it: tables/<game>.js),
// loaded here before any page draws, so a new game needs no line in this file.
import { GAMES } from "../api.js";

export const RENDERERS = Object.fromEntries(await Promise.all(
  GAMES.map(async (g) => [g.name, (await import(g.table_module)).render]),
));

/** A <section class="t-table t-<game>"> for ``state.game``; throws on an unknown game. */
export function renderTable(state, opts = {}) {
  const game = state && state.game;
  const render = Object.prototype.hasOwnProperty.call(RENDERERS, game) ? RENDERERS[game] : null;
  if (!render) throw new Error(`renderTable: unknown game ${JSON.stringify(game)}`);
  return render(state, opts || {});
}
