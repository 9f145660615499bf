"""Golden playthroughs: each file's commands, replayed today, give the recorded bytes,
hashes, descriptions and views (see ``playthroughs/__init__.py``).

A failure names the first difference and how to regenerate the files on purpose::

    KARTLUDO_REGENERATE=1 .venv/bin/pytest tests/engine/test_playthroughs.py
"""

from __future__ import annotations

import os

import pytest
from playthroughs import (
    HERE,
    RECORDED_AT_US,
    command_id,
    commands_of,
    decided,
    explain,
    load,
    names,
    path_of,
    record,
    replay,
    stream_of,
    write,
)

from kartludo.engine.registry import game_names
from kartludo.events.base import encode

REGENERATING = os.environ.get("KARTLUDO_REGENERATE") == "1"


@pytest.mark.parametrize("name", names())
def test_playthrough_replays_as_recorded(name):
    if REGENERATING:
        write(name, record(name))
    assert path_of(name).exists(), f"no playthrough file {path_of(name)}: KARTLUDO_REGENERATE=1 writes it"
    recorded = load(name)
    created, commands = commands_of(recorded)
    problem = explain(name, recorded, replay(name, created, commands, recorded["about"]))
    assert problem is None, problem


@pytest.mark.parametrize("name", names())
def test_playthrough_script_records_the_file(name):
    """The script still plays the recorded commands (a changed script needs a new file)."""
    problem = explain(name, load(name), record(name))
    assert problem is None, problem


def test_every_playthrough_is_of_an_installed_game_and_every_file_has_a_script():
    """A game's playthroughs are its own tests (a new game adds them when it adds a script
    in ``scripts.py``); every file here replays one, of a game this build has."""
    games = {load(name)["created"]["game"] for name in names()}
    assert games <= set(game_names())
    assert sorted(p.stem for p in HERE.glob("*.json")) == sorted(names())


def test_a_changed_description_or_field_fails_naming_the_step_and_the_regeneration():
    name = names()[0]
    recorded = load(name)
    created, commands = commands_of(recorded)
    now = replay(name, created, commands, recorded["about"])
    now["steps"][2]["events"][0]["describe"]["all"] += " (changed)"
    problem = explain(name, recorded, now)
    assert problem is not None and "steps[2].events[0].describe.all" in problem
    assert f"step 2: {recorded['steps'][2]['actor']}: {recorded['steps'][2]['command']}" in problem
    assert "KARTLUDO_REGENERATE=1" in problem and "--regenerate" in problem
    renamed = replay(name, created, commands, recorded["about"])
    renamed["steps"][1]["events"][0]["seat_sees"]["cards"] = renamed["steps"][1]["events"][0]["seat_sees"].pop("deck")
    problem = explain(name, recorded, renamed)
    assert "at steps[1].events[0].seat_sees (fields) (step 1: td: deal " in problem
    assert '\n  recorded: ["deck"]\n  now:      ["cards"]\n' in problem


def test_the_store_records_the_playthrough_hashes(db_url):
    """The recorded hashes are the ones the event store writes for the same envelope."""
    from kartludo.store import EventStore
    from kartludo.store.database import create_engine, upgrade

    upgrade(create_engine(db_url))
    store = EventStore.open(db_url, clock=lambda: RECORDED_AT_US)
    try:
        for name in names():
            recorded = load(name)
            created, commands = commands_of(recorded)
            version = 0
            for step, events in zip(recorded["steps"], [[created], *decided(created, commands)]):
                store.append(stream_of(name), events, version, command_id=command_id(step["step"]),
                             actor=step["actor"])
                version += len(events)
            rows = store.read_stream(stream_of(name))
            expected = [e for step in recorded["steps"] for e in step["events"]]
            assert [r.hash.hex() for r in rows] == [e["hash"] for e in expected], name
            assert [encode(r.event).hex() for r in rows] == [e["payload"] for e in expected], name
    finally:
        store.close()

