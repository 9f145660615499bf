"""A game driven command by command for engine tests, shared by every game's helpers.

``ScriptedTable`` checks after every scripted step that folding the recorded events
gives the live state; ``bot_step`` advances a bot match by one deal or one command.
Each game's helper module subclasses the table with its own set-up and shortcuts.
"""

from __future__ import annotations

import random
from typing import Any, ClassVar

import pytest

from kartludo.engine.base import Command, Game, IllegalCommand, StartDeal, fold, seeded_deck
from kartludo.events.base import Event
from kartludo.events.match import MatchCreated


class ScriptedTable:
    """A match driven command by command; checks the fold after every step."""

    game: ClassVar[Game[Any]]

    def __init__(self, created: MatchCreated) -> None:
        self.created = created
        self.state: Any = self.game.start(created)
        self.events: list[Event] = []

    def apply(self, events: list[Event]) -> list[Event]:
        for e in events:
            self.state = self.game.evolve(self.state, e)
        self.events.extend(events)
        assert fold(self.game, self.created, self.events) == self.state
        return events

    def command(self, cmd: Command) -> list[Event]:
        return self.apply(self.game.decide(self.state, cmd))

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
        return self.game.view(self.state, viewer)


def bot_step(table: ScriptedTable, seed: int, bots: list[Any], rng: random.Random) -> list[Event]:
    """One step of a bot match: the next deal from the match's seeded shuffle, or one
    bot's command (a random one of the seats to act when several are). Applied without
    the per-step fold check (bot matches are long; their tests fold at the end)."""
    game, state = table.game, table.state
    if game.can_deal(state):
        deck, key = seeded_deck(game.deck(table.created.options), seed, game.deal_number(state) + 1)
        new = game.decide(state, StartDeal(deck=deck, shuffle=key))
    else:
        seats = game.to_act(state)
        seat = seats[rng.randrange(len(seats))] if len(seats) > 1 else seats[0]
        new = game.decide(state, bots[seat].choose(game, state, seat, game.legal_commands(state, seat), rng))
    for e in new:
        table.state = game.evolve(table.state, e)
    table.events.extend(new)
    return new
