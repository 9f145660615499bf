"""What a player should confirm before an Uxinjo command: a munt that ends the deal,
or one that is a foul by the cards the player holds (§2.3 3, §6.1).

Judged from what the seat sees only (its own six cards, the revealed card, its exposed
Jx, the points needed, the top discard): never from another hand or the stock, so a
caution tells nothing the seat does not know already.
"""

from __future__ import annotations

from kartludo.engine.base import Command
from kartludo.engine.jx import card_name
from kartludo.engine.uxinjo.commands import Munt
from kartludo.engine.uxinjo.hand import best_split
from kartludo.engine.uxinjo.rules import R_FOUL, R_MUNT
from kartludo.engine.uxinjo.state import Phase, UxState


def caution(state: UxState, command: Command) -> tuple[str, str] | None:
    """(what to confirm, the rule cited), or None."""
    if not isinstance(command, Munt):
        return None
    seat = command.seat
    if state.phase is Phase.CLAIM and state.discards:
        six = tuple(state.hands[seat]) + (state.discards[-1],)
        what = f"a claim on {card_name(state.discards[-1])}"
    elif state.phase is Phase.DISCARD and seat == state.active:
        six = tuple(state.hands[seat])
        what = "munt"
    else:
        return None
    score = best_split(six, state.revealed, len(state.exposed[seat]))
    needed = state.needed
    if score is None:
        return (f"Your six cards do not form two combinations: {what} is a foul, with a penalty. "
                "Munt anyway?", R_FOUL)
    if score.points < needed:
        return (f"Your six cards score {score.points}, and {needed} are needed: {what} is a foul, "
                "with a penalty. Munt anyway?", R_FOUL)
    return (f"Your six cards score {score.points} ({needed} needed): {what} ends the deal. Munt?", R_MUNT)
