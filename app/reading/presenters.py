"""How a match's events, replay steps, states and command outcomes look as JSON.

One shape for every reader: the CLI (``replay --json``, ``state --json``) and the HTTP
service (``/events``, ``/replay``, ``/state``, a command's response) build them here,
so a field never means one thing on the command line and another over HTTP. What a
reader may see is ``app.visibility``'s decision, applied by ``app.reading.reader``; this
module only lays it out. The Structs double as the HTTP service's OpenAPI schema.
"""

from __future__ import annotations

from typing import Any

import msgspec

from kartludo.app.duplicate.boards import board_link
from kartludo.app.matches.fixed import remembered
from kartludo.app.matches.pipeline import MatchService
from kartludo.engine.base import ALL, Viewer
from kartludo.engine.match import Match
from kartludo.events.base import to_builtins
from kartludo.events.duplicate import DuplicateCreated
from kartludo.events.streams import duplicate_stream
from kartludo.store import Recorded
from kartludo.store.transfer import format_us


class EventOut(msgspec.Struct):
    position: int
    version: int
    type: str
    payload: dict[str, Any]
    actor: str = ""
    command_id: str = ""
    recorded_at: str = ""
    stream_id: str = ""
    schema_version: int = 1
    #: the event's chain hash; null while it would commit to something hidden from the caller
    hash: str | None = None
    #: the event in one line, as the CLI's replay shows it (in the same view as `payload`)
    description: str = ""


class ReplayStep(msgspec.Struct):
    step: int
    of: int
    description: str
    event: EventOut
    state: dict[str, Any]
    #: an event the engine decided (a ruling or a settlement): where `r` stops in a viewer
    ruling: bool = False
    #: the turn or trick the step belongs to (0, 1, …): ↑/↓ in a viewer move by these
    turn: int = 0


class ReplayOut(msgspec.Struct):
    match: str
    deal: int
    deals: list[int]
    #: True when the deal has ended (its replay is public: every hand shown)
    ended: bool
    steps: list[ReplayStep]
    #: whose view the steps show: "all", "public" or a player's name
    view: str = "all"


class OutcomeOut(msgspec.Struct):
    match: str
    first_version: int
    positions: list[int]
    duplicate: bool
    #: the events the command caused, in the caller's view
    events: list[EventOut]
    #: the match after the command, in the caller's view (as `GET .../state`), so a
    #: client need not ask again before its next move
    state: dict[str, Any] = {}
    #: a seat caller's legal commands after the command (empty for a TD)
    legal: list[str] = []
    #: the same commands verb by verb as shapes (`engine.shapes`): which of the seat's
    #: cards and how many, a number range, a choice, or the verb alone
    shapes: list[dict[str, Any]] = []
    #: what to confirm before some of those commands (`Game.caution`): command text ->
    #: {"text", "rule"}, judged from the seat's own view
    cautions: dict[str, dict[str, str]] = {}
    #: the command ended a deal of an `auto_deal` match and the table dealt the next
    #: (`state`, `legal` and `shapes` are after that deal)
    dealt: bool = False


# --- events ----------------------------------------------------------------------------
def event_out(record: Recorded, shown: Any, hash: str | None, description: str = "") -> EventOut:
    """A stored event with ``shown`` in place of its payload (hidden cards and secrets
    removed) and its chain hash only where ``hash`` allows it."""
    return EventOut(
        position=record.position, version=record.version, type=record.type,
        payload=to_builtins(shown), actor=record.actor, command_id=record.command_id,
        recorded_at=format_us(record.recorded_at_us), stream_id=record.stream_id,
        schema_version=record.schema_version, hash=hash, description=description,
    )


# --- states ----------------------------------------------------------------------------
def state_json(svc: MatchService, match: Match, viewer: Viewer, *, secrets: bool | None = None) -> dict[str, Any]:
    """The match in ``viewer``'s view, the fields of ``state --json``; once the match is
    over also ``result`` (``result_json``: public, the same for every reader)."""
    out = svc.state_json(match, viewer, secrets=secrets)
    result = result_json(match)
    if result is not None:
        out["result"] = result
    board = board_json(svc, match.id)
    if board is not None:
        out["board"] = board
    return out


def board_json(svc: MatchService, match_id: str) -> dict[str, Any] | None:
    """A duplicate board's place in its event, for ``state``'s ``board`` field:
    ``duplicate`` (the event's id), ``board`` and ``table`` (from 1) and ``boards`` (how
    many the event has); None for an ordinary match. Public (it says which deal is
    played, never how it lies). A match's link is written with the match and never
    changes: it is read once per store (``fixed.remembered``)."""
    link = board_link(svc.store, match_id)
    if link is None:
        return None

    def read() -> dict[str, Any]:
        created = svc.store.read_stream(duplicate_stream(link.duplicate), 1, 1)[0].event
        assert isinstance(created, DuplicateCreated)
        return {"duplicate": link.duplicate, "board": link.board, "table": link.table, "boards": created.boards}

    found: dict[str, Any] = remembered(svc.store, "board json", match_id, read)
    return found


def result_json(match: Match) -> dict[str, Any] | None:
    """The end of a match, once it is over: ``winners`` (every player placed first),
    ``ranking`` (best first, seat order among ties: ``player``, ``rank``, ``score``, and
    ``match_points`` where the game gives them), ``score_name`` (the game's own total, as
    the standings name it), ``higher_is_better``, ``match_points`` and ``closed`` (cut
    at its series' deadline, ranked as things stood). None while the match runs."""
    if not match.over:
        return None
    game, state = match.game, match.state
    result = game.result(state) if game.is_finished(state) else game.standing(state)
    if result is None:  # closed before anything was scored
        return None
    players = list(result.ranks)  # the game's own seats, in seat order (what its totals are keyed by)
    order = sorted(players, key=lambda p: (result.ranks[p], players.index(p)))
    mp = result.match_points
    ranking = [{"player": p, "rank": result.ranks[p], "score": result.scores[p],
                **({"match_points": mp[p]} if mp is not None else {})} for p in order]
    return {"winners": [r["player"] for r in ranking if r["rank"] == 1], "ranking": ranking,
            "score_name": game.total_column[0], "higher_is_better": result.higher_is_better,
            "match_points": dict(mp) if mp is not None else None,
            "closed": bool(match.closed and not game.is_finished(state))}


def moves_json(match: Match, seat: int, *, expanded: bool = True) -> dict[str, Any]:
    """A seat's moves now: its legal commands (unless not ``expanded``: a client that
    builds its controls from the shapes), each verb's shape, and what to confirm
    first; a seat the game is not waiting for has none (every game's contract)."""
    game, state = match.game, match.state
    legal = game.legal_commands(state, seat) if seat in game.to_act(state) else []
    out: dict[str, Any] = {"legal": [c.text() for c in legal]} if expanded else {}
    out["shapes"] = [msgspec.to_builtins(x) for x in game.legal_shapes(state, seat, legal)]
    out["cautions"] = game.legal_cautions(state, seat, legal)
    return out


# --- views ------------------------------------------------------------------------------
def view_name(players: list[str], viewer: Viewer) -> str:
    return "all" if viewer == ALL else "public" if viewer is None else players[viewer]
