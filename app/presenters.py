"""How a match's events, replay steps, states and command outcomes look as JSON.

One shape for every reader: the CLI (``replay --json``, ``state --json``) and the HTTP
service (``/events``, ``/replay``, ``/state``, a command's response) build them here,
so a field never means one thing on the command line and another over HTTP. What a
reader may see is ``app.visibility``'s decision; this module only lays it out.
The Structs double as the HTTP service's OpenAPI schema.
"""

from __future__ import annotations

from typing import Any

import msgspec

from kartludo.app import aggregate
from kartludo.app.aggregate import Match, describe
from kartludo.app.matches import MatchService, Outcome
from kartludo.app.replay import Replay, is_ruling_or_settlement, turn_units
from kartludo.app.visibility import Reading, Shown, events_of, match_over, read_after, redact, sees_secrets
from kartludo.engine.base import ALL, Viewer
from kartludo.events.base import to_builtins
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


def shown_out(shown: Shown, description: str = "") -> EventOut:
    return event_out(shown.record, shown.event, shown.hash, description)


def describe_shown(match: Match, shown: Shown) -> str:
    """One line for an event in the view it is shown in."""
    return describe(match.game, shown.before, shown.record.event, shown.viewer, match.players)


def events_json(svc: MatchService, match_id: str, viewer: Viewer, after: int = 0,
                limit: int | None = None) -> list[EventOut]:
    """The match's events after global position ``after`` (at most ``limit``), each in
    the view ``viewer`` may see it (``visibility.visible_events``) with its description.
    Read from the match's nearest snapshot at or before ``after`` (``visibility.read_after``):
    a client catching up on a long match folds only its recent events."""
    reading = read_after(svc.store, match_id, viewer, after)
    match, shown = reading.match, list(events_of(reading, after))
    if limit is not None:
        shown = shown[:limit]
    return [shown_out(s, describe_shown(match, s)) for s in shown]


# --- states ----------------------------------------------------------------------------
def state_json(svc: MatchService, match: Match, viewer: Viewer, *, secrets: bool | None = None) -> dict[str, Any]:
    """The match in ``viewer``'s view, the fields of ``state --json``."""
    return svc.state_json(match, viewer, secrets=secrets)


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


def view_json(svc: MatchService, match: Match, viewer: Viewer, *, expanded: bool = True) -> dict[str, Any]:
    """The match in ``viewer``'s view; a seat also gets its moves (``legal``, ``shapes``,
    ``cautions``), so a table client needs one request per turn, not two."""
    out = state_json(svc, match, viewer)
    if isinstance(viewer, int) and viewer >= 0:
        out.update(moves_json(match, viewer, expanded=expanded))
    return out


# --- replays ----------------------------------------------------------------------------
def replay_steps(svc: MatchService, rep: Replay, wanted: list[int], viewer: Viewer,
                 reading: Reading) -> list[ReplayStep]:
    """Steps ``wanted`` (1-based) of ``rep`` in ``viewer``'s view, for the reader of
    ``reading`` (who may ask for that view): the event, its description and the state
    after it (the seed only where the reader may see it)."""
    m = rep.match
    count = len(rep.steps)
    units = turn_units(m.game, rep.steps)
    secrets = reading.secrets_in(viewer)
    out = []
    for k in wanted:
        st = rep.steps[k - 1]
        state = state_json(svc, Match(m.id, m.game, m.created, st.state, st.record.version), viewer, secrets=secrets)
        text = rep.description(k, viewer)
        out.append(ReplayStep(k, count, text, shown_out(reading.narrowed(st.record, viewer), text), state,
                              is_ruling_or_settlement(st.record.event), units[k - 1]))
    return out


def view_name(players: list[str], viewer: Viewer) -> str:
    return "all" if viewer == ALL else "public" if viewer is None else players[viewer]


# --- command outcomes ------------------------------------------------------------------
def outcome_out(svc: MatchService, match: Match, outcome: Outcome, viewer: Viewer) -> OutcomeOut:
    """What a command or deal caused, and the match after it, both in ``viewer``'s view.
    Every field of each event is filled from its stored row; its hash only for a TD's
    every-hand view (a seat's view of a match hides cards, so its hashes are withheld,
    as in ``/events``)."""
    before = outcome.before
    if before is None:  # a retried command: fold to the state its events were decided on
        earlier = [r for r in svc.records(match.id) if r.version < outcome.first_version]
        before = aggregate.fold(match.id, earlier).state
    secrets = sees_secrets(viewer, viewer == ALL, match_over(match))
    events = []
    for rec in outcome.records:
        shown = redact(match.game, before, rec.event, viewer, secrets=secrets)
        exact = viewer == ALL and shown == rec.event
        text = describe(match.game, before, rec.event, viewer, match.players)
        events.append(event_out(rec, shown, rec.hash.hex() if exact else None, text))
        before = aggregate.step(match.game, before, rec.event)
    state = view_json(svc, match, viewer)
    moves = {key: state.pop(key) for key in ("legal", "shapes", "cautions") if key in state}
    return OutcomeOut(outcome.match, outcome.first_version, list(outcome.positions), outcome.duplicate, events,
                      state, **moves)
