"""What a viewer may see of an Uxinjo state or event, as data and as text.

Hidden: the stock's order, other seats' hands, another seat's drawn card, buried
discards. Public: the revealed card, the newest discard, exposed Jx, claims, and
a munt's six cards (a declared hand is shown to the table).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, NamedTuple

import msgspec

from kartludo.engine.base import ALL, Viewer
from kartludo.engine.phases import phase_words
from kartludo.engine.uxinjo.commands import to_act
from kartludo.engine.uxinjo.rules import label, who
from kartludo.engine.uxinjo.settle import foul_counts, markers_by_name
from kartludo.engine.uxinjo.state import SEATS, Phase, UxState, match_points
from kartludo.events.base import Event
from kartludo.events.match import DealStarted
from kartludo.events.uxinjo import (
    DealDrawn,
    Discarded,
    Drew,
    Exposed,
    Foul,
    LevuDeclared,
    MatchEnded,
    MuntDeclared,
    Passed,
    Settled,
    Took,
    Transfer,
)

HIDDEN = "??"


def _sees_hand(viewer: Viewer, seat: int) -> bool:
    return viewer == ALL or viewer == seat


def view(s: UxState, viewer: Viewer) -> dict[str, Any]:
    names = s.players
    finished = s.phase is Phase.FINISHED
    in_deal = s.phase in (Phase.TURN, Phase.DISCARD, Phase.CLAIM, Phase.JUDGING)
    out: dict[str, Any] = {
        "seats": {names[i]: label(i) for i in range(SEATS)},
        "hands": {names[i]: list(s.hands[i]) for i in range(SEATS) if _sees_hand(viewer, i) and s.deal},
        "hand_sizes": {names[i]: len(s.hands[i]) for i in range(SEATS)},
        "totals": {},
        "markers": markers_by_name(s),
        "penalties": {names[i]: len(s.penalties[i]) for i in range(SEATS)},
        "fouls": foul_counts(s),
        "dealer": names[s.dealer] if s.dealer >= 0 else None,
        "next_dealer": None if finished or in_deal else names[0 if s.deal == 0 else (s.dealer + 1) % SEATS],
        "active": names[s.active] if in_deal and s.active >= 0 else None,
        "stock_count": len(s.stock),
        "revealed": s.revealed,
        "top_discard": s.discards[-1] if s.discards else None,
        "discard_count": len(s.discards),
        "taken": s.taken,
        "exposed": {names[i]: list(s.exposed[i]) for i in range(SEATS)},
        "levu": [names[i] for i in s.levu],
        "levu_void": len(s.levu) >= SEATS,
        "points_needed": s.needed,
        "window": None,
        "appealed": list(s.appealed),
        "overturned": list(s.overturned),
    }
    out["totals"] = {a: sum(m.values()) for a, m in out["markers"].items()}
    if s.phase is Phase.CLAIM:
        d = s.active
        out["window"] = {
            "discarder": names[d],
            "card": s.discards[-1],
            "answers": {names[o]: s.answers[o] for o in ((d + 1) % SEATS, (d + 2) % SEATS)},
            "last": len(s.stock) <= 2,
        }
    if finished:
        mp = match_points(s.markers)
        out["mp"] = {names[i]: mp[i] for i in range(SEATS)}
        out["end"] = s.end
    return out


class SeatView(NamedTuple):
    """The part of ``view(state, seat)`` a bot weighs each turn, without building the
    rest (markers, fouls, every seat's names): the seat's own hand and exposed Jx
    count, the revealed card, the points needed, the newest discard (the card of an
    open claim window)."""

    hand: tuple[str, ...]
    exposed: int
    revealed: str | None
    points_needed: int
    top_discard: str | None


def seat_view(s: UxState, seat: int) -> SeatView:
    return SeatView(tuple(s.hands[seat]) if s.deal else (), len(s.exposed[seat]), s.revealed, s.needed,
                    s.discards[-1] if s.discards else None)


def redact(state: UxState, event: Event, viewer: Viewer) -> Event:
    if viewer == ALL:
        return event
    if isinstance(event, DealStarted):
        keep = {36}  # the revealed card
        if viewer is not None:
            keep.update(i for i in range(15) if (event.dealer + 1 + i) % SEATS == viewer)
        deck = [c if i in keep else HIDDEN for i, c in enumerate(event.deck)]
        return msgspec.structs.replace(event, deck=deck)
    if isinstance(event, Drew) and viewer != event.seat:
        return msgspec.structs.replace(event, card=HIDDEN)
    if isinstance(event, Exposed) and viewer != event.seat:
        return msgspec.structs.replace(event, replacement=HIDDEN)
    return event


def _points(n: int) -> str:
    return f"{n} point{'s' if n != 1 else ''}"


def _transfers_text(s: UxState, transfers: Sequence[Transfer]) -> str:
    parts = []
    for t in transfers:
        who_ = f"{s.players[t.payer]}→{s.players[t.payee]} {t.amount} {t.reason}"
        if t.void:
            who_ += " void (penalty)"
        elif t.moved != t.amount:
            who_ += f" (moved {t.moved}, finito)"
        parts.append(who_)
    return "; ".join(parts) if parts else "no transfers"


def _voided(s: UxState, event: Settled | DealDrawn) -> str:
    """The decisions without a penalty the event records (the audit trail lists them too)."""
    text = "".join(f"; {who(s, seat)}'s invalid claim is void, no foul (RULING §2.3)"
                   for seat in getattr(event, "void_claims", []))
    if len(event.levu) >= SEATS:
        text += "; every levu is void: all three declared levu (§4.2)"
    return text


def describe(before: UxState, event: Event, viewer: Viewer) -> str:
    event = redact(before, event, viewer)
    if isinstance(event, DealStarted):
        return f"deal {event.deal}: {who(before, event.dealer)} deals; revealed card {event.deck[36]}"
    if isinstance(event, Drew):
        card = "a card" if event.card == HIDDEN else event.card
        pre = f"{who(before, event.seat)} passes and draws" if event.window_pass else f"{who(before, event.seat)} draws"
        return f"{pre} {card}"
    if isinstance(event, Took):
        pre = "passes and takes" if event.window_pass else "takes"
        return f"{who(before, event.seat)} {pre} {event.card} from the discard pile"
    if isinstance(event, Discarded):
        return f"{who(before, event.seat)} discards {event.card}"
    if isinstance(event, LevuDeclared):
        return f"{who(before, event.seat)} declares levu"
    if isinstance(event, Exposed):
        card = "a card" if event.replacement == HIDDEN else event.replacement
        return f"{who(before, event.seat)} eltiri: exposes {event.card}, draws {card}"
    if isinstance(event, MuntDeclared):
        if event.claim and before.discards:
            return f"{who(before, event.seat)} claims munt on {before.discards[-1]}"
        return f"{who(before, event.seat)} declares munt"
    if isinstance(event, Passed):
        return f"{who(before, event.seat)} passes"
    if isinstance(event, Foul):
        f = event.facts
        what = f"claims munt on {f.get('discard')}" if f.get("claim") else "declares munt"
        return f"{who(before, event.seat)} {what}: invalid, {f.get('reason')} — foul ({event.ruling_id})"
    if isinstance(event, Settled):
        how = "from the stock" if event.win == "stock" else f"on {who(before, event.discarder or 0)}'s {event.card}"
        rows = ", ".join(f"{k} {v:+d}" if k != "base" else f"base {v}" for k, v in event.rows.items())
        split = " | ".join(" ".join(t) for t in event.split)
        lifted = f"; lifts penalty {event.lifted}" if event.lifted else ""
        return (
            f"{who(before, event.winner)} wins {how}: {split} = {_points(event.points)} ({rows}), "
            f"{event.needed} needed; {_transfers_text(before, event.transfers)}{lifted}{_voided(before, event)}"
        )
    if isinstance(event, DealDrawn):
        why = {"stock": "the stock is exhausted", "double-munt": "two valid munts", "foul": "foul"}.get(
            event.reason, event.reason
        )
        tail = f"; {_transfers_text(before, event.transfers)}" if event.transfers else ""
        if event.lifted:
            tail += f"; the valid munts lift penalt{'ies' if len(event.lifted) > 1 else 'y'} {', '.join(event.lifted)}"
        return f"deal {event.deal} drawn: {why}{tail}{_voided(before, event)}"
    if isinstance(event, MatchEnded):
        return "match ends: MP " + ", ".join(f"{n} {v:+d}" for n, v in event.mp.items())
    return type(event).type_tag()


def render(s: UxState, viewer: Viewer) -> str:
    v = view(s, viewer)
    names = s.players
    acting = to_act(s)
    lines = [
        f"Uxinjo — deal {s.deal}, {phase_words(s.phase.value)}"
        + (f", dealer {who(s, s.dealer)}" if s.dealer >= 0 else "")
        # between deals the dealer above is the last one's
        + (f", next dealer {who(s, names.index(v['next_dealer']))}" if v["next_dealer"] and s.deal else ""),
        f"stock {len(s.stock)}  revealed {s.revealed or '-'}  discard {v['top_discard'] or '-'}"
        # the card taken from the discard pile this turn is public (everyone saw it taken)
        + (f"  taken {s.taken} by {who(s, s.active)}" if s.taken else "")
        + f"  needed {s.needed}" + (f"  levu {', '.join(who(s, x) for x in s.levu)}" if s.levu else ""),
    ]
    for i in range(SEATS):
        name = names[i]
        hand = " ".join(s.hands[i]) if name in v["hands"] else " ".join(["??"] * len(s.hands[i]))
        exposed = f"  exposed {' '.join(s.exposed[i])}" if s.exposed[i] else ""
        pen = f"  penalties {len(s.penalties[i])}" if s.penalties[i] else ""
        mark = "*" if i in acting else " "
        lines.append(f"{mark}{who(s, i):<15} total {v['totals'][name]:+d}  {hand}{exposed}{pen}")
    lines.append(
        "markers: "
        + "  ".join(f"{names[a]}/{names[b]} {v['markers'][names[a]][names[b]]:+d}" for a, b in ((0, 1), (0, 2), (1, 2)))
    )
    if v["window"]:
        w = v["window"]
        answers = ", ".join(f"{n}: {a or '…'}" for n, a in w["answers"].items())
        lines.append(f"claim window on {w['card']} ({answers})" + (" — last window" if w["last"] else ""))
    if "mp" in v:
        lines.append("match over — MP " + ", ".join(f"{n} {p:+d}" for n, p in v["mp"].items()))
    return "\n".join(lines)

