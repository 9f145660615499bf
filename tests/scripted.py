"""A game driven command by command for engine tests, shared by every game's helpers.

``ScriptedTable`` checks after every scripted step that folding the recorded events
gives the live state. Each game's helper module subclasses the table with its own
set-up and shortcuts.
"""

from __future__ import annotations

from typing import Any, ClassVar

import pytest

from kartludo.engine.base import Command, Game, IllegalCommand, fold
from kartludo.events.base import Event
from kartludo.events.match import MatchCreated


class ScriptedTable:
    """A match driven command by command; checks the fold after every step."""

    game: ClassVar[Game[Any]]

    def __init__(self, created: MatchCreated) -> None:
        self.created = created
        self.state: Any = self.game.start(created)
        self.events: list[Event] = []
        #: every accepted command, in order (a golden playthrough replays them)
        self.commands: list[Command] = []

    def apply(self, events: list[Event]) -> list[Event]:
        for e in events:
            self.state = self.game.evolve(self.state, e)
        self.events.extend(events)
        assert fold(self.game, self.created, self.events) == self.state
        return events

    def command(self, cmd: Command) -> list[Event]:
        events = self.apply(self.game.decide(self.state, cmd))
        self.commands.append(cmd)
        return events

    def act(self, seat: int, verb: str, *args: str) -> list[Event]:
        """A command as typed at the CLI; it must be among the legal commands."""
        cmd = self.game.parse_command(seat, verb, list(args))
        assert cmd in self.game.legal_commands(self.state, seat), f"{cmd.text()} not legal for seat {seat}"
        return self.command(cmd)

    def refuse(self, seat: int, verb: str, *args: str) -> IllegalCommand:
        """A command the game must refuse (and not list as legal); nothing changes."""
        cmd = self.game.parse_command(seat, verb, list(args))
        assert cmd not in self.game.legal_commands(self.state, seat)
        before, count = self.state, len(self.events)
        with pytest.raises(IllegalCommand) as info:
            self.game.decide(self.state, cmd)
        assert self.state is before and len(self.events) == count
        return info.value

    def view(self, viewer: Any = -1) -> dict[str, Any]:
        """The state as ``state --json`` shows it: the match-level fields the app adds
        (as ``MatchService.state_json`` does) and the game's own view."""
        return match_view(self.game, self.state, viewer)


def match_view(game: Game[Any], state: Any, viewer: Any) -> dict[str, Any]:
    names = list(state.players)
    return {"status": "finished" if game.is_finished(state) else "in_progress", "deal": game.deal_number(state),
            "phase": game.phase(state), "to_act": [names[s] for s in game.to_act(state)], "players": names,
            **game.view(state, viewer)}
