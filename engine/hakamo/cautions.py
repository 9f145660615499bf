"""What a player should confirm before a Hakamo command: resigning ends the deal
(§5, the Deklaristo gives up when nobody offered to be Kunulo). Judged from the
command alone: it reveals nothing."""

from __future__ import annotations

from kartludo.engine.base import Command
from kartludo.engine.hakamo.commands import Resign
from kartludo.engine.hakamo.rules import R_NO_KUNULO
from kartludo.engine.hakamo.state import HkState


def caution(state: HkState, command: Command) -> tuple[str, str] | None:
    if isinstance(command, Resign):
        return ("Resigning ends the deal now, without tricks: you score minus half your bid (rounded up). Resign?",
                R_NO_KUNULO)
    return None
