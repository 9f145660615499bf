"""Uxinjo settlements written before a transfer said ``void`` (schema 1 named every
standing penalty in ``void_by``) read as today's events: the log verifies, recheck
finds nothing, and the audit trail names the same voided transfers per ruling."""

from __future__ import annotations

import io
import random

import msgspec

from kartludo.app.audit.recheck import recheck
from kartludo.app.audit.trail import list_rulings
from kartludo.app.matches.pipeline import MatchService, stream_of
from kartludo.app.matches.simulate import pick_bots, play_match
from kartludo.engine import match as aggregate
from kartludo.engine.registry import get_game
from kartludo.events.base import from_builtins
from kartludo.store import EventStore
from kartludo.store.eventstore import GENESIS, chain_hash
from kartludo.store.integrity import verify
from kartludo.store.transfer import export_events, import_events, parse_us


def _as_schema_1(lines: list[bytes]) -> list[bytes]:
    """The exported match as the engine before the change wrote it: each void transfer
    names its payee's standing penalties (the state before the settlement), at
    schema 1, and the hash chain re-linked over the older payloads."""
    game = get_game("uxinjo")
    state = None
    prev = GENESIS
    out = []
    for raw in lines:
        line = msgspec.json.decode(raw)
        event = from_builtins(line["type"], line["schema_version"], line["payload"])
        if state is None:
            state = game.start(event)
        else:
            if line["type"] in ("uxinjo.settled", "uxinjo.deal-drawn"):
                for t in line["payload"].get("transfers", []):
                    void = t.pop("void")
                    t["void_by"] = list(state.penalties[t["payee"]]) if void else []
                line["schema_version"] = 1
            if aggregate.engine_folds(event):
                state = game.evolve(state, event)
        payload = msgspec.msgpack.encode(line["payload"])
        digest = chain_hash(prev, line["stream_id"], line["version"], line["type"], line["schema_version"],
                            parse_us(line["recorded_at"]), line["actor"], line["command_id"], payload)
        line["prev_hash"], line["hash"] = prev.hex(), digest.hex()
        prev = digest
        out.append(msgspec.json.encode(line))
    return out


def test_settlements_of_schema_1_read_as_today(tmp_path):
    new = EventStore.open(f"sqlite:///{tmp_path / 'new.db'}")
    old = EventStore.open(f"sqlite:///{tmp_path / 'old.db'}")
    try:
        match_id, _, _ = play_match(MatchService(new), "uxinjo", ["ann", "bob", "cy"],
                                    pick_bots("uxinjo", ["random"]), random.Random(3), max_deals=30,
                                    max_commands=10**5)
        buf = io.BytesIO()
        export_events(new, buf, stream_of(match_id))
        lines = _as_schema_1(buf.getvalue().splitlines())
        older = [msgspec.json.decode(raw) for raw in lines]
        named = [t["void_by"] for line in older if line["schema_version"] == 1
                 for t in line["payload"].get("transfers", []) if t["void_by"]]
        assert len(named) >= 5, "the match needs void transfers"
        import_events(old, lines, unsigned=True)
        assert [r.event for r in old.read_stream(stream_of(match_id))] == [
            r.event for r in new.read_stream(stream_of(match_id))]
        assert verify(old).ok
        assert recheck(old, match_id)[1] == []
        assert [(r.ruling_id, r.voided) for r in list_rulings(old, match_id)] == [
            (r.ruling_id, r.voided) for r in list_rulings(new, match_id)]
        assert sum(len(r.voided) for r in list_rulings(old, match_id)) >= 5
    finally:
        new.close()
        old.close()
