"""Forged imports: every one refused with an error naming the problem, nothing written
(the import as ``kartludo events import`` runs it: the store's checks and the
application's forgery screen, ``app.matches.forgery``).

The source is a league (``league.py``) on SQLite; the target, on each backend, is
either empty or already holds the league, and must be exactly as before after every
refusal.
"""

from __future__ import annotations

import io
from typing import Any

import msgspec
import pytest
from league import League, stream_of

from kartludo.app.matches.forgery import import_events
from kartludo.app.tokens import TokenIndex
from kartludo.store import EventStore, ImportRefused
from kartludo.store.database import create_engine, upgrade
from kartludo.store.eventstore import GENESIS, chain_hash
from kartludo.store.integrity import verify
from kartludo.store.keys import new_key
from kartludo.store.transfer import (
    ExportSeal,
    _SealLine,
    export_events,
    export_link,
    export_message,
    parse_us,
)


@pytest.fixture(scope="module")
def source(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("forgery")
    url = f"sqlite:///{tmp / 'league.db'}"
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("XDG_CONFIG_HOME", str(tmp / "config"))
        upgrade(create_engine(url))
        store = EventStore.open(url)
        league = League(store, new_key(tmp / "seal.key"))
        attacker = new_key(tmp / "attacker.key")
    yield league, attacker
    store.close()


def export(league: League, *, signed: bool = True, with_tokens: bool = False, stream: str | None = None) -> list[bytes]:
    out = io.BytesIO()
    export_events(league.store, out, stream, key=league.key if signed else None, with_tokens=with_tokens)
    return out.getvalue().splitlines()


def lines_of(raw: list[bytes]) -> tuple[list[dict[str, Any]], dict[str, Any] | None]:
    events = [msgspec.json.decode(r) for r in raw if not r.startswith(b'{"seal":')]
    seals = [msgspec.json.decode(r)["seal"] for r in raw if r.startswith(b'{"seal":')]
    return events, (seals[0] if seals else None)


def rechain(events: list[dict[str, Any]], sid: str) -> None:
    """Recompute one stream's hashes in a file, as a forger would."""
    prev = GENESIS
    for line in events:
        if line["stream_id"] != sid:
            continue
        payload = msgspec.msgpack.encode(line["payload"])
        digest = chain_hash(prev, sid, line["version"], line["type"], line["schema_version"],
                            parse_us(line["recorded_at"]), line["actor"], line["command_id"], payload)
        line["prev_hash"], line["hash"] = prev.hex(), digest.hex()
        prev = digest


def write(events: list[dict[str, Any]], key=None, *, with_tokens: bool = False) -> list[bytes]:
    """A file of ``events``, signed with ``key`` (a forger's, say) or unsigned."""
    out = [msgspec.json.encode(e) for e in events]
    if key is not None:
        head = GENESIS
        for e in events:
            head = export_link(head, bytes.fromhex(e["hash"]))
        sig = key.sign(export_message(len(events), head, None, with_tokens))
        out.append(msgspec.json.encode(_SealLine(ExportSeal(len(events), head.hex(), None, with_tokens, key.public,
                                                            sig.hex()))))
    return out


@pytest.fixture(params=["empty", "holding the league"])
def target(request, store, source):
    league, _ = source
    if request.param == "holding the league":
        import_events(store, export(league), trusted=[league.key.public])
    return store


def refused(store: EventStore, lines: list[bytes], match: str, **kw: Any) -> None:
    before = store.count_events(), store.head_position()
    with pytest.raises(ImportRefused, match=match):
        import_events(store, lines, **kw)
    assert (store.count_events(), store.head_position()) == before  # nothing written
    assert verify(store).ok


def test_a_signed_export_imports_with_its_key_and_never_brings_credentials(store, source):
    league, _ = source
    lines = export(league)
    assert lines[-1].startswith(b'{"seal":')
    assert not any(b'"type":"token.' in line for line in lines)
    summary = import_events(store, lines, trusted=[league.key.public])
    assert summary.imported == league.store.count_events() - len(league.store.read_stream("tokens"))
    assert TokenIndex(store).resolve(league.td) is None
    assert verify(store).ok


def test_tokens_come_only_with_the_flag_from_a_signed_file(store, source):
    league, _ = source
    lines = export(league, with_tokens=True)
    assert any(b'"type":"token.revoked"' in line for line in lines)
    refused(store, lines, "credential.*--with-tokens", trusted=[league.key.public])
    refused(store, lines, "only from a signed export", unsigned=True, with_tokens=True)
    import_events(store, lines, trusted=[league.key.public], with_tokens=True)
    assert TokenIndex(store).resolve(league.td).role == "td"
    assert TokenIndex(store).resolve(league.revoked) is None


def test_unsigned_untrusted_or_altered_files_are_refused(target, source):
    league, attacker = source
    trusted = [league.key.public]
    refused(target, export(league, signed=False), "not signed.*--unsigned", trusted=trusted)
    refused(target, export(league), "no key is trusted")
    refused(target, export(league), "not trusted", trusted=[attacker.public])
    events, seal = lines_of(export(league))
    # the newest event of a stream dropped: every chain still checks, the signed head does not
    newest = max(i for i, e in enumerate(events) if e["stream_id"] == stream_of(league.finished))
    refused(target, write(events[:newest] + events[newest + 1:]) + [msgspec.json.encode({"seal": seal})],
            "do not end at the signed head", trusted=trusted)
    refused(target, write(events) + [msgspec.json.encode({"seal": {**seal, "events": seal["events"] - 1}})],
            "signature does not verify", trusted=trusted)
    refused(target, export(league) + [export(league)[0]], "after the seal line", trusted=trusted)
    # a file whose chain does not verify, signed or not
    broken = [dict(e) for e in events]
    del broken[3]
    refused(target, write(broken), "version .* where .* was expected|does not link", unsigned=True)
    refused(target, write(broken, attacker), "version .* where .* was expected|does not link",
            trusted=[attacker.public])


def test_a_forged_td_token_is_refused(target, source):
    league, attacker = source
    events, _ = lines_of(export(league, with_tokens=True))
    issued = next(e for e in events if e["type"] == "token.issued" and e["payload"]["role"] == "td")
    last = max(e["version"] for e in events if e["stream_id"] == "tokens")
    forged = {**issued, "version": last + 1, "payload": {**issued["payload"], "token_hash": "ab" * 32,
                                                         "label": "eve"}}
    events.append(forged)
    rechain(events, "tokens")
    signed_seal = export(league, with_tokens=True)[-1]  # the genuine seal line, kept
    refused(target, write(events) + [signed_seal], "do not end at the signed head", trusted=[league.key.public],
            with_tokens=True)
    refused(target, write(events), "credential", unsigned=True)
    refused(target, write(events), "only from a signed export", unsigned=True, with_tokens=True)
    refused(target, write(events, attacker, with_tokens=True), "not trusted", trusted=[league.key.public],
            with_tokens=True)


def test_a_finished_match_copied_under_a_new_id_is_refused(target, source):
    league, _ = source
    events, _ = lines_of(export(league))
    old, new = stream_of(league.finished), stream_of("c0ffee000000")
    copy = [{**e, "stream_id": new} for e in events if e["stream_id"] == old]
    rechain(copy, new)
    refused(target, write(events + copy), f"{new} is a copy of {old}", unsigned=True)
    if target.count_events():
        refused(target, write(copy), f"{new} is a copy of {old}, already stored", unsigned=True)
    # the creation's command id changed too: the deals' salted commitments still give it away
    copy[0]["command_id"] = "forged"
    rechain(copy, new)
    refused(target, write(events + copy), "same salted commitment", unsigned=True)
    if target.count_events():
        refused(target, write(copy), "same salted commitment.*already stored", unsigned=True)


def test_a_fake_closing_event_is_refused(target, source):
    league, _ = source
    events, _ = lines_of(export(league))
    running = stream_of(league.running)
    last = max(e["version"] for e in events if e["stream_id"] == running)
    template = next(e for e in events if e["stream_id"] == running)
    ended = next(e for e in events if e["type"] == "uxinjo.match-ended")
    fake_end = {**template, "version": last + 1, "type": ended["type"], "schema_version": ended["schema_version"],
                "payload": ended["payload"]}
    refused(target, write(rechained(events + [fake_end], running)), "ends the match where its rules do not",
            unsigned=True)
    closed = {**template, "version": last + 1, "type": "match.closed", "schema_version": 1,
              "payload": {"type": "match.closed", "reason": "deadline", "deal": 1}}
    refused(target, write(rechained(events + [closed], running)), "in no series", unsigned=True)
    series_match = stream_of(league.series_match)
    last_s = max(e["version"] for e in events if e["stream_id"] == series_match)
    closed_s = {**closed, "stream_id": series_match, "version": last_s + 1}
    refused(target, write(rechained(events + [closed_s], series_match)), "after the match had finished",
            unsigned=True)


def rechained(events: list[dict[str, Any]], sid: str) -> list[dict[str, Any]]:
    events = [dict(e) for e in events]
    rechain(events, sid)
    return events


@pytest.mark.parametrize("field, value, says", [
    ("command_id", "c" * 201, "command id is 201 characters long"),
    ("actor", "a" * 201, "actor is 201 characters long"),
    ("actor", "td\x00", "actor contains a NUL"),
    ("stream_id", "match-" + "s" * 195, "stream id is 201 characters long"),
])
def test_values_postgresql_refuses_are_refused_by_every_import(target, source, field, value, says):
    """A file made on a database that took an over-long or NUL-bearing envelope value (an
    old SQLite one, say) is refused at the edge on every backend, the line named: the same
    file never imports on SQLite and fails on PostgreSQL."""
    league, _ = source
    events, _ = lines_of(export(league))
    sid = stream_of(league.running)
    last = max(i for i, e in enumerate(events) if e["stream_id"] == sid)
    edited = [dict(e) for e in events]
    edited[last][field] = value
    rechain(edited, value if field == "stream_id" else sid)
    refused(target, write(edited), f"line {last + 1}: the {says}", unsigned=True)
