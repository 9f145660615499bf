"""Golden playthroughs (as OpenSpiel's): scripted deals recorded step by step in data files.

Each ``<game>-<scenario>.json`` here holds a match's set-up and its commands, and for
every step what today's code made of it: the command's text; each event's msgpack
payload (hex), its hash in a hash chain over a fixed envelope (stream, version,
recording time, actor, command id) computed with the store's ``chain_hash``, its
one-line description for a TD (``ALL``) and for one seat, and what that seat sees
of it; and the state view for a TD and for that seat after the step. The test replays
the commands and compares, so renaming an event field, changing an encoding or a
description, or leaking a card to the seat fails it.

The files change only on purpose::

    .venv/bin/python -m tests.engine.playthroughs --regenerate
    KARTLUDO_REGENERATE=1 .venv/bin/pytest tests/engine/test_playthroughs.py

then review ``git diff tests/engine/playthroughs``. The scripts are in ``scripts.py``.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import msgspec

from kartludo.engine.base import ALL, Command, Game, StartDeal
from kartludo.engine.registry import get_game
from kartludo.events.base import Event, encode, to_builtins
from kartludo.events.match import MatchCreated
from kartludo.store.eventstore import GENESIS, chain_hash

HERE = Path(__file__).resolve().parent
# the engine tests' helpers, importable as the test modules import them (also under ``python -m``)
for _folder in (HERE.parent, HERE.parents[1]):
    if str(_folder) not in sys.path:
        sys.path.append(str(_folder))

from gamespecs import SPECS  # noqa: E402

REGENERATE = (
    "If the change is intended, regenerate the playthroughs and review the diff:\n"
    "    .venv/bin/python -m tests.engine.playthroughs --regenerate\n"
    "or  KARTLUDO_REGENERATE=1 .venv/bin/pytest tests/engine/test_playthroughs.py\n"
    "then  git diff tests/engine/playthroughs"
)
#: the envelope every playthrough event is hashed in (the stream is ``match-<playthrough name>``)
RECORDED_AT_US = 1_764_547_200_000_000  # 2025-12-01T00:00:00Z
TD = "td"
#: whose view a playthrough records besides the TD's
SEAT = 0
#: fields the pipeline, not the game, owns in ``state --json``; the recorded view takes
#: them from the game contract (``deal_number``, ``phase``, ``to_act``) instead
PIPELINE_FIELDS = ("match", "game", "status", "deal", "phase", "to_act", "players")


def stream_of(name: str) -> str:
    return f"match-{name}"


def command_id(step: int) -> str:
    return f"playthrough-{step}"


def path_of(name: str) -> Path:
    return HERE / f"{name}.json"


def names() -> list[str]:
    from .scripts import SCRIPTS

    return list(SCRIPTS)


def parse(game: Game[Any], seat: int | None, text: str) -> Command:
    """A recorded command from its text (a deal is the table's, not a seat's)."""
    return SPECS[game.name].parse(-1 if seat is None else seat, text)


def redact(game: Game[Any], state: Any, event: Event, viewer: int) -> Event:
    return game.redact(state, event, viewer)


def state_view(game: Game[Any], state: Any, viewer: int, players: list[str]) -> dict[str, Any]:
    view = game.view(state, viewer)
    return {
        "deal": game.deal_number(state),
        "phase": game.phase(state),
        "to_act": [players[s] for s in game.to_act(state)],
        **{k: v for k, v in view.items() if k not in PIPELINE_FIELDS},
    }


class _Chain:
    """Hash-chains events as the store does, in the fixed envelope."""

    def __init__(self, stream: str) -> None:
        self.stream = stream
        self.version = 0
        self.prev = GENESIS

    def add(self, event: Event, actor: str, step: int) -> dict[str, Any]:
        self.version += 1
        payload = encode(event)
        digest = chain_hash(self.prev, self.stream, self.version, event.type_tag(), event.schema, RECORDED_AT_US, actor,
                            command_id(step), payload)
        self.prev = digest
        return {"version": self.version, "type": event.type_tag(), "schema": event.schema, "payload": payload.hex(),
                "hash": digest.hex()}


def replay(name: str, created: MatchCreated, commands: list[tuple[int | None, str]], about: str = "") -> dict[str, Any]:
    """The playthrough of ``commands`` (seat, text) from ``created``, as recorded in a file."""
    game = get_game(created.game)
    players = list(created.players)
    chain = _Chain(stream_of(name))
    steps: list[dict[str, Any]] = [{"step": 0, "actor": TD, "command": None,
                                    "events": [chain.add(created, TD, 0)]}]
    state = game.start(created)
    for k, (seat, text) in enumerate(commands, start=1):
        command = parse(game, seat, text)
        assert command.text() == text, f"step {k}: {text!r} reads back as {command.text()!r}"
        actor = TD if seat is None else players[seat]
        events = []
        for event in game.decide(state, command):
            record = chain.add(event, actor, k)
            record["describe"] = {"all": game.describe(state, event, ALL), "seat": game.describe(state, event, SEAT)}
            record["seat_sees"] = to_builtins(redact(game, state, event, SEAT))
            events.append(record)
            state = game.evolve(state, event)
        steps.append({
            "step": k,
            "actor": actor,
            "seat": seat,
            "command": text,
            "events": events,
            "view": {"all": state_view(game, state, ALL, players), "seat": state_view(game, state, SEAT, players)},
        })
    data = {
        "about": about,
        "regenerate": "python -m tests.engine.playthroughs --regenerate",
        "envelope": {"stream": stream_of(name), "recorded_at_us": RECORDED_AT_US,
                     "command_id": command_id(0)[:-1] + "{step}",
                     "actor": f"the seat's player; {TD} for the creation and the deals"},
        "seat": players[SEAT],
        "created": to_builtins(created),
        "steps": steps,
    }
    return json.loads(json.dumps(data))  # as read back from the file: lists, not tuples


def commands_of(data: dict[str, Any]) -> tuple[MatchCreated, list[tuple[int | None, str]]]:
    """What a playthrough file replays: the set-up and each step's (seat, command)."""
    created = msgspec.convert(data["created"], MatchCreated)
    return created, [(s["seat"], s["command"]) for s in data["steps"][1:]]


def record(name: str) -> dict[str, Any]:
    """Run a script and record its playthrough."""
    from .scripts import SCRIPTS

    script = SCRIPTS[name]
    table = script()
    commands = [(None if isinstance(c, StartDeal) else c.seat, c.text()) for c in table.commands]
    data = replay(name, table.created, commands, " ".join((script.__doc__ or "").split()))
    events = [e for step in decided(table.created, commands) for e in step]
    assert events == table.events, f"{name}: the script did something besides commands (its events differ)"
    return data


def decided(created: MatchCreated, commands: list[tuple[int | None, str]]) -> list[list[Event]]:
    """The events each command records, decided again from the set-up."""
    game = get_game(created.game)
    state, out = game.start(created), []
    for seat, text in commands:
        events = game.decide(state, parse(game, seat, text))
        for event in events:
            state = game.evolve(state, event)
        out.append(events)
    return out


def load(name: str) -> dict[str, Any]:
    return json.loads(path_of(name).read_text())


def dumps(value: Any, indent: int = 0) -> str:
    """JSON for review in a diff: one line per step field, short values and lists of
    plain values kept on one line."""
    flat = json.dumps(value, ensure_ascii=False)
    plain = isinstance(value, list) and not any(isinstance(v, (dict, list)) for v in value)
    if not isinstance(value, (dict, list)) or plain or len(flat) + indent <= 100:
        return flat
    pad = " " * (indent + 1)
    if isinstance(value, dict):
        items = [f"{pad}{json.dumps(k, ensure_ascii=False)}: {dumps(v, indent + 1)}" for k, v in value.items()]
        return "{\n" + ",\n".join(items) + "\n" + " " * indent + "}"
    return "[\n" + ",\n".join(pad + dumps(v, indent + 1) for v in value) + "\n" + " " * indent + "]"


def write(name: str, data: dict[str, Any]) -> Path:
    path = path_of(name)
    path.write_text(dumps(data) + "\n")
    return path


def regenerate(only: list[str] | None = None) -> list[Path]:
    return [write(name, record(name)) for name in (only or names())]


def first_difference(recorded: Any, now: Any, path: str = "") -> tuple[str, Any, Any] | None:
    """Where two JSON values first differ: (path, recorded part, current part)."""
    if type(recorded) is not type(now):
        return path, recorded, now
    if isinstance(recorded, dict):
        if list(recorded) != list(now):  # a field renamed, added, dropped or moved
            return (f"{path} (fields)", [k for k in recorded if k not in now] or list(recorded),
                    [k for k in now if k not in recorded] or list(now))
        for key in recorded:
            found = first_difference(recorded[key], now[key], f"{path}.{key}")
            if found:
                return found
        return None
    if isinstance(recorded, list):
        for i, (a, b) in enumerate(zip(recorded, now)):
            found = first_difference(a, b, f"{path}[{i}]")
            if found:
                return found
        if len(recorded) != len(now):
            return f"{path} (length {len(recorded)} recorded, {len(now)} now)", recorded[len(now):], now[len(recorded):]
        return None
    return None if recorded == now else (path, recorded, now)


def explain(name: str, recorded: dict[str, Any], now: dict[str, Any]) -> str | None:
    """None when the playthrough still holds, else what changed and how to regenerate."""
    found = first_difference(recorded, now)
    if found is None:
        return None
    where, was, is_ = found
    context = ""
    if where.startswith(".steps["):
        k = int(where[len(".steps["):].split("]")[0])
        steps = recorded["steps"]
        if k < len(steps):
            context = f" (step {k}: {steps[k]['actor']}: {steps[k]['command'] or 'the match is created'})"

    def short(value: Any) -> str:
        text = json.dumps(value, ensure_ascii=False)
        return text if len(text) <= 300 else text[:300] + "…"

    return (f"playthrough {name} differs from {path_of(name).relative_to(HERE.parents[2])} at "
            f"{where.lstrip('.')}{context}:\n  recorded: {short(was)}\n  now:      {short(is_)}\n{REGENERATE}")
