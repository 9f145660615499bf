// renderTable(state, opts): the table of any kartludo game, from `kartludo state --json`
// (GET /matches/{id}/state) in any viewer's view. opts.actionFor(code, player) → {label,
// onClick} | null turns the cards of a shown hand into buttons (the live seat table);
// opts.bottom names the player whose seat is drawn at the bottom (default: the viewer).
import { render as uxinjo } from "./uxinjo.js";
import { render as hakamo } from "./hakamo.js";
import { render as laugavatnsmanni } from "./laugavatnsmanni.js";
import { render as svoiKozyri } from "./svoi-kozyri.js";

export const RENDERERS = {
  uxinjo,
  hakamo,
  laugavatnsmanni,
  "svoi-kozyri": svoiKozyri,
};

/** A <section class="t-table t-<game>"> for ``state.game``; throws on an unknown game. */
export function renderTable(state, opts = {}) {
  const game = state && state.game;
  const render = Object.prototype.hasOwnProperty.call(RENDERERS, game) ? RENDERERS[game] : null;
  if (!render) throw new Error(`renderTable: unknown game ${JSON.stringify(game)}`);
  return render(state, opts || {});
}
