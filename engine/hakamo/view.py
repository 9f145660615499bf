"""What a viewer may see of a Hakamo state or event, as data and as text.

Hidden: other seats' hands, the Kasxetoj while face down (the Deklaristo knows
the cards they laid, never the ones they kept unseen), the deck order. Public:
bids, the face-up Kasxetoj (and so trump, special order and what C copies), the
declaration, every played card, tricks, cancels, a Matisto's shown hand, scores.
"""

from __future__ import annotations

from typing import Any

import msgspec

from kartludo.engine.base import ALL, Viewer
from kartludo.engine.hakamo import cards as hc
from kartludo.engine.hakamo.fold import evolve
from kartludo.engine.hakamo.rules import counts, label, lead_colour, next_dealer, to_act, who
from kartludo.engine.hakamo.state import DEALS, SEATS, HkState, Phase
from kartludo.engine.phases import phase_words
from kartludo.events import hakamo as ev
from kartludo.events.base import Event
from kartludo.events.match import DealStarted

HIDDEN = "??"
_IN_DEAL = frozenset(p for p in Phase if p not in (Phase.WAITING_DEAL, Phase.FINISHED))


def _sees_hand(viewer: Viewer, seat: int) -> bool:
    return viewer == ALL or viewer == seat


def _sees_kasxetoj(s: HkState, viewer: Viewer, up: bool) -> bool:
    """A Kasxetoj card is seen when face up, by a TD, or by the Deklaristo who laid it."""
    return up or viewer == ALL or (viewer is not None and viewer == s.deklaristo and s.kept is False)


def _name(s: HkState, seat: int | None) -> str | None:
    return s.players[seat] if seat is not None and 0 <= seat < SEATS else None


def view(s: HkState, viewer: Viewer) -> dict[str, Any]:
    names = s.players
    finished = s.phase is Phase.FINISHED
    in_deal = s.phase in _IN_DEAL
    dealt = s.deal > 0
    counted_now = counts(s)
    out: dict[str, Any] = {
        "deals_counted": s.counted,
        "deals_in_match": DEALS,
        "seats": {names[i]: label(i) for i in range(SEATS)},
        "hands": {names[i]: list(s.hands[i]) for i in range(SEATS) if dealt and _sees_hand(viewer, i)},
        "hand_sizes": {names[i]: len(s.hands[i]) for i in range(SEATS)},
        "totals": {names[i]: s.totals[i] for i in range(SEATS)},
        "history": [{names[i]: row[i] for i in range(SEATS)} for row in s.history],
        "contract": s.contract if s.deklaristo >= 0 and in_deal else None,
        "deklaristo": _name(s, s.deklaristo) if in_deal else None,
        "kunulo": _name(s, s.kunulo) if in_deal else None,
        "share": s.share if s.kunulo >= 0 and in_deal else None,
        "solo": s.solo if in_deal else False,
        "dealer": _name(s, s.dealer),
        "next_dealer": None if finished or in_deal else names[next_dealer(s)],
        "redeal": s.redeal,
        "auction": {
            "bids": [{"player": names[p], "bid": None if b < 0 else b} for p, b in s.bids],
            "high": s.high or None,
            "high_bidder": _name(s, s.high_seat),
            "passed": [names[i] for i in range(SEATS) if s.passed[i]],
        },
        "kunulo_auction": {
            "bids": [{"player": names[p], "share": None if b < 0 else b} for p, b in s.share_bids],
            "low": s.share_low or None,
            "low_bidder": _name(s, s.share_seat),
            "max_first": s.contract // 2 if s.contract else None,
        },
        "kasxetoj": _kasxetoj(s, viewer) if dealt else None,
        "trump": {"mode": s.trump_mode, "colour": s.trump},
        "inversa": list(s.inversa),
        "c_copies": s.copy,
        "declared": None if not s.declared else ("malhakama" if s.target is None else names[s.target]),
        "resigned": s.resigned,
        "trick": None,
        "tricks_played": s.tricks,
        "counts": {names[i]: counted_now[i] for i in range(SEATS)},
        "taken": {names[i]: list(s.taken[i]) for i in range(SEATS)},
        "cancelled": list(s.cancelled),
        "matistos": [names[i] for i in s.matistos],
        "mati_cards": list(s.mati_cards),
        "last_trick": _last_trick(s),
        "end": s.end,
    }
    if s.phase is Phase.TRICKS:
        out["trick"] = {
            "number": s.tricks + 1,
            "leader": names[s.leader],
            "lead": lead_colour(s),
            "plays": [{"player": names[p], "card": c, "as": hc.face(c, s.copy)} for p, c in s.trick],
        }
    if finished:
        out["winner"] = [names[i] for i in range(SEATS) if s.totals[i] == max(s.totals)]
    return out


def _kasxetoj(s: HkState, viewer: Viewer) -> dict[str, Any]:
    if not s.kasxetoj:  # the Deklaristo holds them (lay phase)
        return {"kept": s.kept, "upper": None, "upper_up": False, "lower": None, "lower_up": False}
    upper, lower = s.kasxetoj
    return {
        "kept": s.kept,
        "upper": upper if _sees_kasxetoj(s, viewer, s.upper_up) else HIDDEN,
        "upper_up": s.upper_up,
        "lower": lower if _sees_kasxetoj(s, viewer, s.lower_up) else HIDDEN,
        "lower_up": s.lower_up,
    }


def _last_trick(s: HkState) -> dict[str, Any] | None:
    t = s.last_trick
    if t is None:
        return None
    names = s.players
    return {
        "number": t.trick,
        "leader": names[t.leader],
        "lead": t.lead,
        "plays": [{"player": names[p.seat], "card": p.card, "as": p.face, "role": p.role, "cancelled": p.cancelled}
                  for p in t.plays],
        "winner": _name(s, t.winner),
        "points": t.points,
    }


def redact(state: HkState, event: Event, viewer: Viewer) -> Event:
    if viewer == ALL:
        return event
    if isinstance(event, DealStarted):
        n = len(event.deck)
        keep = set()
        if viewer is not None:
            keep = {i for i in range(min(n, SEATS * 9)) if (event.dealer + 1 + i) % SEATS == viewer}
        deck = [c if i in keep else HIDDEN for i, c in enumerate(event.deck)]
        return msgspec.structs.replace(event, deck=deck)
    if isinstance(event, ev.KasxetojTaken) and viewer != event.seat:
        return msgspec.structs.replace(event, cards=[HIDDEN] * len(event.cards))
    if isinstance(event, ev.KasxetojLaid) and viewer != event.seat:
        return msgspec.structs.replace(
            event,
            upper=event.upper if event.upper_up else HIDDEN,
            lower=event.lower if event.lower_up else HIDDEN,
        )
    return event


def _orientation(card: str, up: bool) -> str:
    return f"{card} face up" if up else (f"{card} face down" if card != HIDDEN else "a card face down")


def _order_text(mode: str, trump: str | None, inversa: str) -> str:
    t = {"colour": f"trump {trump}", "jx": "trump set per trick by Jx", "none": "no trump"}[mode]
    o = "normal order" if not inversa else ("every colour inversa" if len(inversa) == 3 else f"{inversa} inversa")
    return f"{t}, {o}"


def describe(before: HkState, event: Event, viewer: Viewer) -> str:
    event = redact(before, event, viewer)

    def L(seat: int | None) -> str:
        return who(before, seat)
    if isinstance(event, DealStarted):
        again = " (redeal)" if before.redeal and event.dealer == before.dealer else ""
        return f"deal {event.deal}{again}: {L(event.dealer)} deals 9 cards each and 2 Kasxetoj face down"
    if isinstance(event, ev.Bid):
        return f"{L(event.seat)} bids {event.amount}" + _auction_end(before, event)
    if isinstance(event, ev.Passed):
        return f"{L(event.seat)} passes" + _auction_end(before, event)
    if isinstance(event, ev.PassedOut):
        return f"all four passed: {L(event.dealer)} deals again (a redeal is not one of the eight deals)"
    if isinstance(event, ev.KasxetojKept):
        return f"{L(event.seat)} keeps the Kasxetoj: both count as face down ({_order_text('none', None, '')})"
    if isinstance(event, ev.KasxetojTaken):
        shown = "the two Kasxetoj" if HIDDEN in event.cards else " ".join(event.cards)
        return f"{L(event.seat)} exchanges: takes {shown} into the hand"
    if isinstance(event, ev.KasxetojLaid):
        mode, trump = hc.trump_of(event.upper, event.upper_up)
        inv = hc.inversa_of(event.lower, event.lower_up)
        return (
            f"{L(event.seat)} lays upper {_orientation(event.upper, event.upper_up)}, lower "
            f"{_orientation(event.lower, event.lower_up)}: {_order_text(mode, trump, inv)}"
        )
    if isinstance(event, ev.Solo):
        return f"{L(event.seat)} plays solo"
    if isinstance(event, ev.Recruited):
        return f"{L(event.seat)} recruits a Kunulo (first share bid at most {before.contract // 2})"
    if isinstance(event, ev.ShareBid):
        return f"{L(event.seat)} bids a share of {event.share}" + _share_end(before, event)
    if isinstance(event, ev.SharePassed):
        return f"{L(event.seat)} passes" + _share_end(before, event)
    if isinstance(event, ev.Resigned):
        return f"{L(event.seat)} resigns"
    if isinstance(event, ev.Declared):
        return f"{L(event.seat)} declares {L(event.target)}"
    if isinstance(event, ev.Played):
        as_ = f" (as {before.copy})" if event.card == "C" and before.copy else ""
        return f"{L(event.seat)} plays {event.card}{as_}"
    if isinstance(event, ev.Matatis):
        tail = ": trick-taking stops" if event.lead else ""
        return f"{L(event.seat)} matatis ({event.reason}) — shows and discards {' '.join(event.hand)}{tail}"
    if isinstance(event, ev.TrickEnded):
        cancels = "; ".join(f"{' '.join(c.cards)} cancelled ({c.why})" for c in event.cancels)
        cancels = f" [{cancels}]" if cancels else ""
        if event.winner is None:
            return f"trick {event.trick}: every card is cancelled{cancels} — trick-taking stops"
        card = next(p.card for p in event.plays if p.seat == event.winner)
        return f"{L(event.winner)} wins trick {event.trick} with {card} (+{event.points}){cancels}"
    if isinstance(event, ev.DealScored):
        return _scored_text(before, event)
    if isinstance(event, ev.MatchEnded):
        return "match ends: " + ", ".join(f"{n} {v:+d}" for n, v in event.totals.items())
    return type(event).type_tag()


def _auction_end(before: HkState, event: Event) -> str:
    after = evolve(before, event)
    if after.phase is Phase.KASXETOJ:
        return f"; {who(after, after.deklaristo)} is Deklaristo at {after.contract}"
    if after.phase is Phase.PASSED_OUT:
        return "; all four passed"
    return ""


def _share_end(before: HkState, event: Event) -> str:
    after = evolve(before, event)
    if after.phase is Phase.DECLARATION and after.kunulo >= 0:
        return f"; {who(after, after.kunulo)} is Kunulo with a share of {after.share}"
    if after.phase is Phase.NO_KUNULO:
        return "; nobody will be Kunulo: solo or resign"
    return ""


def _scored_text(s: HkState, e: ev.DealScored) -> str:
    names = s.players
    awards = ", ".join(f"{names[a.seat]} {a.points:+d}" for a in e.awards)
    if e.resigned:
        return f"deal {e.deal} scored: {who(s, e.deklaristo)} resigned at {e.contract}; {awards}"
    counts_ = ", ".join(f"{names[c.seat]} {c.count}" for c in e.counts)
    hak = ", ".join(who(s, h) for h in e.hakamistos) or "none"
    parts = [f"base {e.gv_base} ({e.gv_case})"] + [f"{k} +{v}" for k, v in e.bonuses.items()]
    result = "won" if e.won else "lost"
    return (
        f"deal {e.deal} scored: counts {counts_}; Hakamisto {hak}; declared {who(s, e.target)}; "
        f"GV {e.gv} = {' + '.join(parts)} vs contract {e.contract}: {result}; {awards}"
    )


def render(s: HkState, viewer: Viewer) -> str:
    v = view(s, viewer)
    names = s.players
    acting = to_act(s)
    head = f"Hakamo — deal {s.deal} ({s.counted}/{DEALS} counted), {phase_words(s.phase.value)}"
    if s.dealer >= 0:
        head += f", dealer {who(s, s.dealer)}"
    if v["next_dealer"] and s.deal:  # between deals the dealer above is the last one's
        head += f", next dealer {who(s, names.index(v['next_dealer']))}"
    lines = [head]
    if s.deklaristo >= 0 and s.phase in _IN_DEAL:
        roles = f"Deklaristo {who(s, s.deklaristo)} at {s.contract}"
        if s.kunulo >= 0:
            roles += f", Kunulo {who(s, s.kunulo)} (share {s.share})"
        elif s.solo:
            roles += ", solo"
        if s.declared:
            roles += f", declared {who(s, s.target)}"
        lines.append(roles)
    elif s.phase is Phase.AUCTION:
        bids = ", ".join(f"{who(s, p)} {'pass' if b < 0 else b}" for p, b in s.bids) or "none yet"
        lines.append(f"auction: {bids}")
    k = v["kasxetoj"]
    if k and s.phase in _IN_DEAL:
        if k["upper"] is None:
            lines.append("Kasxetoj: in the Deklaristo's hand")
        else:
            lines.append(
                f"Kasxetoj: upper {k['upper']}{' (up)' if k['upper_up'] else ''}, lower {k['lower']}"
                f"{' (up)' if k['lower_up'] else ''}" + (" — kept" if k["kept"] else "")
                + f"; {_order_text(s.trump_mode, s.trump, s.inversa)}" + (f"; C = {s.copy}" if s.copy else "")
            )
    for i in range(SEATS):
        name = names[i]
        hand = " ".join(s.hands[i]) if name in v["hands"] else " ".join([HIDDEN] * len(s.hands[i]))
        mark = "*" if i in acting else " "
        extra = "  matisto" if i in s.matistos else ""
        lines.append(
            f"{mark}{who(s, i):<15} total {s.totals[i]:+d}  count {v['counts'][name]:<2} {hand}{extra}"
        )
    if v["trick"]:
        t = v["trick"]
        plays = ", ".join(f"{who(s, names.index(p['player']))} {p['card']}" for p in t["plays"]) or "(to lead)"
        lines.append(f"trick {t['number']}: {plays}")
    if v["last_trick"]:
        t = v["last_trick"]
        plays = ", ".join(
            f"{who(s, names.index(p['player']))} {p['card']}{' (cancelled)' if p['cancelled'] else ''}"
            for p in t["plays"]
        )
        won = f"{t['winner']} +{t['points']}" if t["winner"] else "all cancelled"
        lines.append(f"last trick {t['number']}: {plays} → {won}")
    if s.phase is Phase.FINISHED:
        lines.append("match over — winner " + ", ".join(v["winner"]))
    return "\n".join(lines)
