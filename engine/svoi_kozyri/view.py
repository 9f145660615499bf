"""What a viewer may see of a Svoi Kozyri state or event, as data and as text.

Hidden: other seats' hands and the deck order. Public: the pile (face up, every
card), hand sizes, trump suits, who has left the deal, the passing of sixes (a
player's own trump six always ends with its owner, so the passes reveal nothing
held now), pick-ups, and the single card that decides a draw. A loser's other
cards stay hidden.
"""

from __future__ import annotations

from typing import Any

import msgspec

from kartludo.engine.base import ALL, Viewer, ranks_from_scores
from kartludo.engine.french import SUIT_NAMES, SUIT_SYMBOLS
from kartludo.engine.phases import phase_words
from kartludo.engine.svoi_kozyri.cards import pickup_count, pickup_rule
from kartludo.engine.svoi_kozyri.rules import label, losses_by_name, to_act
from kartludo.engine.svoi_kozyri.state import PLAY_PHASES, Phase, SkState
from kartludo.events.base import Event
from kartludo.events.match import DealStarted
from kartludo.events.svoi_kozyri import DealEnded, MatchEnded, PickedUp, Played, SixesPassed

HIDDEN = "??"


def _sees_hand(viewer: Viewer, seat: int) -> bool:
    return viewer == ALL or viewer == seat


def view(s: SkState, viewer: Viewer) -> dict[str, Any]:
    names = s.players
    n = s.n
    finished = s.phase is Phase.FINISHED
    playing = s.phase in PLAY_PHASES
    losses = losses_by_name(s)
    pickup = None
    if s.phase is Phase.BEAT:
        rule = pickup_rule(s.pile[-1], s.trumps[s.turn])
        pickup = {"rule": rule, "count": pickup_count(rule, len(s.pile))}
    out: dict[str, Any] = {
        "trumps": {names[i]: s.trumps[i] for i in range(n)},
        "hands": {names[i]: list(s.hands[i]) for i in range(n) if _sees_hand(viewer, i) and s.deal},
        "hand_sizes": {names[i]: len(s.hands[i]) for i in range(n)},
        "totals": dict(losses),
        "losses": losses,
        "pile": list(s.pile),
        "top": s.top,
        "due": s.phase.value if playing else None,
        "turn": names[s.turn] if playing else None,
        "pickup": pickup,
        "out": [names[i] for i in s.out],
        "dealer": names[s.dealer] if s.dealer >= 0 else None,
        "next_dealer": None if finished or s.phase is not Phase.WAITING_DEAL else names[s.upcoming_dealer],
        "deals": s.deals,
        "deals_played": s.completed,
        "results": [
            {"deal": i + 1, "loser": names[r] if r >= 0 else None, "draw": r < 0} for i, r in enumerate(s.results)
        ],
    }
    if s.problem is not None:
        out["problem"] = s.problem
    if finished:
        out["ranks"] = ranks_from_scores(losses, higher_is_better=False)
    return out


def redact(state: SkState, event: Event, viewer: Viewer) -> Event:
    """``event`` with what ``viewer`` may not see replaced by ``"??"``: a seat sees
    its own dealt cards (the state before the deal knows the table size)."""
    if viewer == ALL:
        return event
    if isinstance(event, DealStarted):
        n = state.n
        deck = [
            c if viewer is not None and (event.dealer + 1 + i) % n == viewer else HIDDEN
            for i, c in enumerate(event.deck)
        ]
        return msgspec.structs.replace(event, deck=deck)
    if isinstance(event, DealEnded) and viewer != event.last and len(event.hand) != 1:
        return msgspec.structs.replace(event, hand=[HIDDEN] * len(event.hand))
    return event


def _suit(trump: str) -> str:
    return f"{SUIT_SYMBOLS.get(trump, '?')}{trump}"


def describe(before: SkState, event: Event, viewer: Viewer) -> str:
    event = redact(before, event, viewer)
    if isinstance(event, DealStarted):
        trumps = ", ".join(f"{label(before, i)} {_suit(t)}" for i, t in enumerate(before.trumps))
        lead = label(before, (event.dealer + 1) % before.n)
        return f"deal {event.deal}: {label(before, event.dealer)} deals; trumps {trumps}; {lead} leads"
    if isinstance(event, SixesPassed):
        if not event.passes:
            return "no six changes hands"
        moves = ", ".join(f"{p.card} {label(before, p.giver)}→{label(before, p.receiver)}" for p in event.passes)
        return f"sixes passed to their suits' owners: {moves}"
    if isinstance(event, Played):
        who = label(before, event.seat)
        after = len(before.hands[event.seat]) - 1 if 0 <= event.seat < before.n else 1
        if event.role == "beat":
            text = f"{who} beats {before.top} with {event.card}"
            if after == 0:
                holding = [i for i in range(before.n) if i != event.seat and before.hands[i]]
                if len(holding) > 1:
                    text += ": last card, leaves the deal; the next player plays freely"
                elif holding:  # the deal ends at once: nobody is left to play freely
                    text += f": last card, leaves the deal; only {label(before, holding[0])} still holds cards"
                else:
                    text += ": last card, leaves the deal; the deal ends"
            return text
        verb = {"lead": "leads", "extra": "adds", "free": "plays freely"}.get(event.role, "plays")
        text = f"{who} {verb} {event.card}"
        return text + (": last card, leaves the deal" if after == 0 else "")
    if isinstance(event, PickedUp):
        why = {"3": "not their trump", "5": "their trump", "all": "the ace of their trump"}.get(event.rule, event.rule)
        k = len(event.cards)
        return (
            f"{label(before, event.seat)} picks up {k} card{'s' if k != 1 else ''} "
            f"({event.top} is {why}): {' '.join(event.cards)}"
        )
    if isinstance(event, DealEnded):
        who = label(before, event.last)
        top = event.top or "an empty pile"
        # the match's last deal: nobody deals next (``before`` is settling it; a state
        # after the event has counted it already)
        final = before.completed + (before.phase is Phase.SETTLING) >= before.deals
        if event.outcome == "draw":
            again = "" if final else f"; {label(before, event.next_dealer)} deals again"
            return f"deal {event.deal} drawn: {who}'s last card {event.hand[0]} beats {top}{again}"
        if len(event.hand) == 1:
            reason = f"last card {event.hand[0]} does not beat {top}"
        else:
            k = len(event.hand)
            shown = "" if HIDDEN in event.hand else f" ({' '.join(event.hand)})"
            reason = f"still holds {k} cards{shown}"
        return f"deal {event.deal}: {who} loses ({reason})" + ("" if final else " and deals next")
    if isinstance(event, MatchEnded):
        deals = f"{event.deals} deal" + ("" if event.deals == 1 else "s")
        if event.draws:  # RULING §Cards, players, trumps: said, so the losses need not add up to the deals
            drawn = "it was" if event.deals == 1 else f"{event.draws} of them"
            deals += f" ({drawn} drawn: a drawn deal counts as one of the match's deals)"
        return f"match ends after {deals}: losses " + ", ".join(f"{n} {v}" for n, v in event.losses.items())
    return type(event).type_tag()


def render(s: SkState, viewer: Viewer) -> str:
    v = view(s, viewer)
    names = s.players
    acting = to_act(s)
    head = f"Svoi Kozyri — deal {s.deal} of {s.deals}, {phase_words(s.phase.value)}"
    if s.dealer >= 0:
        head += f", dealer {names[s.dealer]}"
    if v["next_dealer"] and s.deal:  # between deals the dealer above is the last one's
        head += f", next dealer {v['next_dealer']}"
    lines = [head]
    if s.deal:
        top = f"  top {s.top}" if s.pile else ""
        lines.append(f"pile ({len(s.pile)}, bottom first): {' '.join(s.pile) or '-'}{top}")
    width = max(len(p) for p in names)
    for i, name in enumerate(names):
        mark = "*" if i in acting else " "
        trump = f"{SUIT_SYMBOLS.get(s.trumps[i], '?')} {SUIT_NAMES.get(s.trumps[i], '?'):<8}"
        if name in v["hands"]:
            cards = " ".join(v["hands"][name]) or "-"
        else:
            cards = " ".join([HIDDEN] * len(s.hands[i])) or "-"
        state = f"out ({s.out.index(i) + 1}.)" if i in s.out else f"{len(s.hands[i]):>2} cards"
        lines.append(f"{mark}{name:<{width}}  trump {trump}  losses {s.losses[i]}  {state}  {cards}")
    if v["due"]:
        if v["pickup"] is not None:
            due = f"beat {s.top} or pick up {v['pickup']['count']}"
        else:
            due = {"lead": "lead any card", "extra": "add one more card on top"}.get(
                v["due"], "play any card (the previous player beat with the last card)"
            )
        lines.append(f"{v['turn']} to act: {due}")
    if s.phase is Phase.FINISHED:
        lines.append("match over — losses " + ", ".join(f"{n} {c}" for n, c in v["losses"].items()))
    return "\n".join(lines)
