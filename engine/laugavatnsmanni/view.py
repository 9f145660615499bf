"""What a viewer may see of a Laugavatnsmanni state or event, as data and as text.

Hidden: other seats' hands, the Manni (face down; the declarer takes its cards
unseen) and the declarer's exchange discards (seen only by the declarer). Public:
the contract and great calls, every card played, tricks taken, totals.
"""

from __future__ import annotations

from typing import Any

import msgspec

from kartludo.engine.base import ALL, Viewer
from kartludo.engine.laugavatnsmanni.rules import name, to_act, totals_by_name, unused
from kartludo.engine.laugavatnsmanni.state import (
    SEAT_LABELS,
    SEATS,
    TRUMP,
    LvState,
    Phase,
)
from kartludo.engine.phases import phase_words
from kartludo.events.base import Event
from kartludo.events.laugavatnsmanni import (
    CardPlayed,
    ContractChosen,
    DealScored,
    Exchanged,
    GreatCalled,
    GreatPassed,
    Held,
    MatchEnded,
    TrickWon,
    Yielded,
)
from kartludo.events.match import DealStarted

HIDDEN = "??"
_IN_DEAL = frozenset((Phase.CONTRACT, Phase.GREAT, Phase.HOLD, Phase.EXCHANGE, Phase.PLAY, Phase.SCORING))


def _sees(viewer: Viewer, seat: int | None) -> bool:
    return viewer == ALL or (viewer is not None and viewer == seat)


def view(s: LvState, viewer: Viewer) -> dict[str, Any]:
    names = s.players
    finished = s.phase is Phase.FINISHED
    in_deal = s.phase in _IN_DEAL
    declarer = s.declarer if in_deal else None
    out: dict[str, Any] = {
        "seats": {names[i]: SEAT_LABELS[i] for i in range(SEATS)},
        "hands": {names[i]: list(s.hands[i]) for i in range(SEATS) if s.deal and _sees(viewer, i)},
        "hand_sizes": {names[i]: len(s.hands[i]) for i in range(SEATS)},
        "totals": totals_by_name(s),
        "target_points": s.target_points,
        "max_deals": s.max_deals,
        "dealer": names[s.dealer] if in_deal else None,
        "next_dealer": names[0 if s.deal == 0 else (s.dealer + 1) % SEATS] if s.phase is Phase.WAITING_DEAL else None,
        "chooser": names[s.chooser] if in_deal else None,
        "chosen_contract": s.chosen if in_deal else None,
        "contract": s.contract if in_deal else None,
        "trump": TRUMP[s.contract] if in_deal and s.contract else None,
        "declarer": names[declarer] if declarer is not None else None,
        "used_contracts": {names[i]: list(s.used[i]) for i in range(SEATS)},
        "unused_contracts": {names[i]: unused(s, i) for i in range(SEATS)},
        "great_call": {
            "calls": [{"player": names[p], "contract": c} for p, c in s.great_calls] if in_deal else [],
            "held": s.held if in_deal else False,
            "great": s.great if in_deal else False,
            "used": {names[i]: s.great_used[i] for i in range(SEATS)},
        },
        "manni_count": len(s.manni) if s.deal else 0,
        "exchanged": s.exchanged if in_deal else None,
        "tricks": {names[i]: s.tricks(i) for i in range(SEATS)},
        "tricks_played": s.tricks_played,
        "leader": names[s.leader] if s.phase is Phase.PLAY else None,
        "trick": [{"player": names[(s.leader + k) % SEATS], "card": c} for k, c in enumerate(s.trick)],
        "last_trick": None,
        "last_deal": None,
    }
    if s.last_trick is not None:
        lead, winner, cards = s.last_trick
        out["last_trick"] = {
            "leader": names[lead],
            "winner": names[winner],
            "cards": [{"player": names[(lead + k) % SEATS], "card": c} for k, c in enumerate(cards)],
        }
    if in_deal and _sees(viewer, s.declarer) and s.exchanged is not None:
        out["discards"] = list(s.discards)
    if viewer == ALL and s.deal:
        out["manni"] = list(s.manni)
        out["discards"] = list(s.discards)
    if not in_deal and s.scores is not None and s.declarer is not None:
        out["last_deal"] = {
            "deal": s.deal,
            "contract": s.contract,
            "great": s.great,
            "declarer": names[s.declarer],
            "tricks": {names[i]: s.tricks(i) for i in range(SEATS)},
            "scores": {names[i]: s.scores[i] for i in range(SEATS)},
        }
    if finished:
        out["end"] = s.end
    return out


def seat_view(s: LvState, seat: int) -> dict[str, Any]:
    """The part of ``view(s, seat)`` the heuristic bot weighs each turn, without building
    the rest (every seat's names, totals, tricks, calls): ``hand`` (the seat's own
    cards, as ``view``'s ``hands`` holds them), ``contract``, ``trump`` and ``trick``
    (``[{"card": …}]`` in play order), each as ``view`` shows it."""
    in_deal = s.phase in _IN_DEAL
    contract = s.contract if in_deal else None
    return {"hand": s.hands[seat] if s.deal else (), "contract": contract,
            "trump": TRUMP[contract] if contract else None, "trick": [{"card": c} for c in s.trick]}


def redact(state: LvState, event: Event, viewer: Viewer) -> Event:
    if viewer == ALL:
        return event
    if isinstance(event, DealStarted):
        deck = [
            c if viewer is not None and i < 48 and (event.dealer + 1 + i // 4) % SEATS == viewer else HIDDEN
            for i, c in enumerate(event.deck)
        ]
        return msgspec.structs.replace(event, deck=deck)
    if isinstance(event, Exchanged) and viewer != event.seat:
        return msgspec.structs.replace(event, discards=[HIDDEN] * len(event.discards),
                                       taken=[HIDDEN] * len(event.taken))
    return event


def _signed(n: int) -> str:
    return f"{n:+d}" if n else "0"


def _contract_name(contract: str | None, great: bool = False) -> str:
    if contract is None:
        return "-"
    return f"great {contract}" if great else contract


def describe(before: LvState, event: Event, viewer: Viewer) -> str:
    event = redact(before, event, viewer)
    s = before
    if isinstance(event, DealStarted):
        chooser = (event.dealer + 1) % SEATS
        return f"deal {event.deal}: {name(s, event.dealer)} deals; {name(s, chooser)} chooses the contract"
    if isinstance(event, ContractChosen):
        tail = "; no great call over Nullo" if event.contract == "nullo" else ""
        return f"{name(s, event.seat)} chooses {event.contract}{tail}"
    if isinstance(event, GreatCalled):
        return f"{name(s, event.seat)} calls great {event.contract}"
    if isinstance(event, GreatPassed):
        last = event.seat == (s.chooser + 2) % SEATS
        if last and not s.great_calls:
            return f"{name(s, event.seat)} passes; {name(s, s.chooser)} declares {s.chosen}"
        return f"{name(s, event.seat)} passes"
    if isinstance(event, Held):
        return f"{name(s, event.seat)} holds: great {event.contract}, declared by {name(s, event.seat)}"
    if isinstance(event, Yielded):
        seat, contract = s.great_calls[-1] if s.great_calls else (-1, "?")
        return f"{name(s, event.seat)} yields: {name(s, seat)} plays great {contract}"
    if isinstance(event, Exchanged):
        k = len(event.discards)
        if k == 0:
            return f"{name(s, event.seat)} keeps the hand (no exchange)"
        cards = "card" if k == 1 else "cards"
        text = f"{name(s, event.seat)} exchanges {k} {cards} with the Manni"
        if HIDDEN not in event.discards:
            text += f": discards {' '.join(event.discards)}, takes {' '.join(event.taken)}"
        return text
    if isinstance(event, CardPlayed):
        verb = "leads" if not s.trick else "plays"
        return f"{name(s, event.seat)} {verb} {event.card}"
    if isinstance(event, TrickWon):
        return f"{name(s, event.winner)} wins trick {event.trick} with {event.card}"
    if isinstance(event, DealScored):
        parts = ", ".join(
            f"{name(s, p.seat)} {p.tricks} trick{'s' if p.tricks != 1 else ''} ({_signed(p.score)})"
            for p in event.parts
        )
        totals = ", ".join(f"{name(s, i)} {t}" for i, t in enumerate(event.totals))
        kind = {"great-15": ", 15 tricks", "great-16": ", all 16 tricks"}.get(event.kind, "")
        return (
            f"deal {event.deal} scored: {_contract_name(event.contract, event.great)} by "
            f"{name(s, event.declarer)}{kind}: {parts}; totals {totals}"
        )
    if isinstance(event, MatchEnded):
        why = "a total reached the target" if event.reason == "target" else "the last deal is played"
        totals = ", ".join(f"{n} {t}" for n, t in event.totals.items())
        return f"match ends after deal {event.deal} ({why}): {totals}"
    return type(event).type_tag()


def render(s: LvState, viewer: Viewer) -> str:
    v = view(s, viewer)
    names = s.players
    acting = to_act(s)
    head = f"Laugavatnsmanni — deal {s.deal}/{s.max_deals}, {phase_words(s.phase.value)}"
    if v["dealer"]:
        head += f", dealer {v['dealer']}, chooser {v['chooser']}"
    if v["next_dealer"] and s.deal:
        head += f", next dealer {v['next_dealer']}"
    lines = [head]
    if v["contract"]:
        line = f"contract {_contract_name(v['contract'], s.great)}"
        if s.great and s.chosen != s.contract:
            line += f" (chosen: {s.chosen})"
        if v["declarer"]:
            line += f", declarer {v['declarer']}"
        if s.great_calls:
            line += "; great calls " + ", ".join(f"{names[p]} {c}" for p, c in s.great_calls)
            if s.held:
                line += f"; {names[s.chooser]} held"
        lines.append(line)
    if s.deal and s.phase is not Phase.FINISHED:
        manni = f"Manni {v['manni_count']} face down"
        if v.get("manni"):
            manni += f" ({' '.join(v['manni'])})"
        if v["exchanged"] is not None:
            manni += f"; declarer exchanged {v['exchanged']}"
            if v.get("discards"):
                manni += f" (discards {' '.join(v['discards'])})"
        lines.append(manni)
    for i in range(SEATS):
        nm = names[i]
        hand = " ".join(s.hands[i]) if nm in v["hands"] else " ".join([HIDDEN] * len(s.hands[i]))
        mark = "*" if i in acting else " "
        used = ",".join(c[:2] for c in s.used[i]) or "-"
        great = " great-used" if s.great_used[i] else ""
        lines.append(
            f"{mark}{SEAT_LABELS[i]} {nm:<10} total {s.totals[i]:>3}  tricks {s.tricks(i):>2}  "
            f"used {used}{great}  {hand}".rstrip()
        )
    if v["trick"]:
        lines.append("trick: " + "  ".join(f"{t['player']} {t['card']}" for t in v["trick"]))
    if v["last_trick"]:
        lt = v["last_trick"]
        lines.append("last trick: " + "  ".join(f"{t['player']} {t['card']}" for t in lt["cards"])
                     + f" — {lt['winner']}")
    if v["last_deal"]:
        ld = v["last_deal"]
        lines.append(
            f"deal {ld['deal']}: {_contract_name(ld['contract'], ld['great'])} by {ld['declarer']}: "
            + ", ".join(f"{n} {ld['tricks'][n]} ({_signed(ld['scores'][n])})" for n in names)
        )
    if s.phase is Phase.FINISHED:
        lines.append("match over — " + ", ".join(f"{n} {t}" for n, t in v["totals"].items()))
    return "\n".join(lines)
