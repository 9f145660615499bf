"""A seat's legal commands as a lazy collection, as python-chess's ``board.legal_moves``.

A bot usually knows the command it wants and only needs to hear that it is legal: a
Laugavatnsmanni declarer choosing its discards does not need the 2,517 exchanges its
hand allows listed, checked and sorted first (they were most of a rollout's time).
``cmd in legal`` runs the game's one checker on that command alone; only indexing,
``len`` or iteration list them all (once, in ``legal_commands``' order).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any, overload

from kartludo.engine.base import Command, Game, IllegalCommand


class Legal(Sequence[Command]):
    """``game.legal_commands(state, seat)``, listed on first need."""

    __slots__ = ("game", "state", "seat", "_listed")

    def __init__(self, game: Game[Any], state: Any, seat: int) -> None:
        self.game, self.state, self.seat = game, state, seat
        self._listed: list[Command] | None = None

    def __contains__(self, command: object) -> bool:
        if self._listed is not None:
            return command in self._listed
        if not isinstance(command, Command) or command.seat != self.seat:
            return False
        if self.seat not in self.game.to_act(self.state):
            return False
        try:
            self.game.check(self.state, command)
        except IllegalCommand:
            return False
        return True

    def _all(self) -> list[Command]:
        if self._listed is None:
            self._listed = self.game.legal_commands(self.state, self.seat)
        return self._listed

    @overload
    def __getitem__(self, index: int) -> Command: ...

    @overload
    def __getitem__(self, index: slice) -> Sequence[Command]: ...

    def __getitem__(self, index: int | slice) -> Command | Sequence[Command]:
        return self._all()[index]

    def __len__(self) -> int:
        return len(self._all())

    def __iter__(self) -> Iterator[Command]:
        return iter(self._all())

    def __bool__(self) -> bool:
        return bool(self._all())

    @property
    def listed(self) -> bool:
        """Whether every command was listed (tests check a bot did not need to)."""
        return self._listed is not None
