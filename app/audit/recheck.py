"""``kartludo audit recheck``: the recorded actions, rulings and settlements of a match
against today's engine, reporting each one it would refuse or record differently."""

from __future__ import annotations

from typing import Any

import msgspec

from kartludo.app.errors import AppError
from kartludo.app.matches.pipeline import MatchService
from kartludo.engine import match as aggregate
from kartludo.engine.base import IllegalCommand
from kartludo.engine.registry import get_game
from kartludo.events.match import DealStarted, MatchCreated, Ruling
from kartludo.events.streams import MATCH_PREFIX, match_stream
from kartludo.store import EventStore, Recorded


class Difference(msgspec.Struct):
    """A recorded event that today's engine would not record: a ruling or settlement it
    would make differently (``fields`` maps each differing field to [recorded, engine]),
    or a player's action it refuses (``refused`` names today's rule; ``outcomes`` lists
    the deal's recorded rulings and settlement that followed that action, whose outcome
    rests on it)."""

    match: str
    position: int
    version: int
    recorded: str
    engine: str
    fields: dict[str, list[Any]] = {}
    refused: str | None = None
    outcomes: list[str] = []

    def __str__(self) -> str:
        head = f"match {self.match} v{self.version} (#{self.position}): "
        if self.refused is not None:
            tail = ("; the deal's outcome rests on it: " + ", ".join(self.outcomes) if self.outcomes
                    else "; no ruling or settlement has followed it yet")
            return head + f"recorded {self.recorded}, which today's engine refuses: {self.refused}" + tail
        if self.fields:
            parts = [f"{k}: recorded {_clip(a)} / engine {_clip(b)}" for k, (a, b) in self.fields.items()]
            return head + f"{self.recorded} differs — " + "; ".join(parts)
        return head + f"recorded {self.recorded}, today's engine makes {self.engine}"


def _clip(value: Any, width: int = 70) -> str:
    text = msgspec.json.encode(value).decode()
    return text if len(text) <= width else text[: width - 1] + "…"


def _short(event: Any) -> str:
    return "nothing" if event is None else type(event).__struct_config__.tag


def _difference(match_id: str, rec: Recorded, made: Any) -> Difference:
    diff = Difference(match_id, rec.position, rec.version, _short(rec.event), _short(made))
    if made is not None and type(made) is type(rec.event):
        a, b = msgspec.to_builtins(rec.event), msgspec.to_builtins(made)
        diff.fields = {k: [a.get(k), b.get(k)] for k in {**a, **b} if a.get(k) != b.get(k)}
    return diff


def outcome(event: Any) -> Any:
    """``event`` without what only explains it (``Ruling.words``: a citation, a
    sentence in its facts or effect): two rulings with the same outcome compare equal."""
    words = getattr(type(event), "words", None)
    if not words:
        return event
    data = msgspec.to_builtins(event)
    for path in words:
        head, _, key = path.partition(".")
        if key:
            data.get(head, {}).pop(key, None)
        else:
            data.pop(head, None)
    return type(event).__struct_config__.tag, data


def _rejudge(game: Any, state: Any, match_id: str, rec: Recorded) -> Difference | None:
    """A recorded action today's rules refuse (or would record differently), else None."""
    command = game.command_for(rec.event)
    if command is None:
        return None
    try:
        made = game.decide(state, command)
    except IllegalCommand as exc:
        return Difference(match_id, rec.position, rec.version, f"{_short(rec.event)} ({command.text()})",
                          "a refusal", refused=str(exc))
    first = made[0]
    if isinstance(first, DealStarted) and isinstance(rec.event, DealStarted):
        # the salt and commitment are the pipeline's, added after the engine decided the deal
        first = msgspec.structs.replace(first, salt=rec.event.salt, commitment=rec.event.commitment)
    if first != rec.event:
        return _difference(match_id, rec, first)
    return None


def recheck_match(records: list[Recorded], match_id: str) -> tuple[list[Difference], list[str]]:
    """Re-fold a match through today's engine (with the options recorded at creation):
    re-judge every recorded action and compare every ruling and settlement it makes with
    what was recorded. A refused action lists the rulings and settlement of its deal that
    followed it. Returns the differences and notes (e.g. another ruleset)."""
    created = records[0].event
    if not isinstance(created, MatchCreated):
        raise AppError(f"match {match_id} does not start with MatchCreated")
    game = get_game(created.game)
    notes = []
    if created.ruleset != game.ruleset:
        notes.append(f"match {match_id} was recorded under {created.ruleset}; today's engine is {game.ruleset}")
    state = game.start(created)
    diffs = []
    reworded = 0
    refused: list[Difference] = []  # this deal's refused actions, collecting the outcomes that follow
    for rec in records[1:]:
        event = rec.event
        if not aggregate.engine_folds(event):  # the match's own fact: nothing the engine judges
            state = aggregate.step(game, state, event)  # (a flag fall's penalty still moves the totals)
            continue
        expected = game.automatic(state)
        if type(event).derived:
            made = expected[0] if expected else None
            if made != event:
                if made is not None and type(made) is type(event) and outcome(made) == outcome(event):
                    reworded += 1
                else:
                    diffs.append(_difference(match_id, rec, made))
        else:
            if expected:
                diffs.append(Difference(match_id, rec.position, rec.version, f"no decision before {rec.type}",
                                        _short(expected[0])))
            judged = _rejudge(game, state, match_id, rec)
            if judged is not None:
                diffs.append(judged)
                if judged.refused is not None:
                    refused.append(judged)
        state = aggregate.step(game, state, event)  # the recorded history goes on, whatever today's engine says
        if refused and type(event).derived:
            ends_deal = game.can_deal(state) or game.is_finished(state)
            if isinstance(event, Ruling) or ends_deal:
                for diff in refused:
                    diff.outcomes.append(f"{rec.type} v{rec.version} (#{rec.position})")
            if ends_deal:
                refused = []
    if reworded:
        notes.append(f"match {match_id}: {reworded} ruling{'s' if reworded > 1 else ''} recorded in other words "
                     "(citation or explanation) with the same outcome as today's: not listed")
    pending = game.automatic(state)
    if pending:
        last = records[-1]
        diffs.append(Difference(match_id, last.position, last.version, "nothing after the last event",
                                _short(pending[0])))
    return diffs, notes


def recheck(store: EventStore, match: str | None = None) -> tuple[int, list[Difference], list[str]]:
    svc = MatchService(store)
    ids = [svc.resolve(match)] if match else [s[len(MATCH_PREFIX):] for s in store.streams(MATCH_PREFIX)]
    diffs: list[Difference] = []
    notes: list[str] = []
    for match_id in ids:
        d, n = recheck_match(store.read_stream(match_stream(match_id)), match_id)
        diffs.extend(d)
        notes.extend(n)
    return len(ids), diffs, notes
