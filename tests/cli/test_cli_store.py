"""The store's commands through click's CliRunner: output, exit codes, no tracebacks."""

from __future__ import annotations

import pytest
import sqlalchemy as sa
from click.testing import CliRunner

from kartludo.cli.main import COMMANDS, cli
from kartludo.store.schema import SCHEMA_REVISION


def run(url, *args, input=None):
    result = CliRunner().invoke(cli, ["--db", url, *args], input=input)
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    return result


def seed_events(url):
    from sample_events import Noted

    from kartludo.store import EventStore

    assert run(url, "db", "upgrade").exit_code == 0
    with EventStore.open(url) as store:
        store.append("notes-a", [Noted(n=1), Noted(n=2)], 0, actor="ann")
        store.append("notes-b", [Noted(n=3)], 0, actor="bob")


def test_db_upgrade_then_status(db_url):
    first = run(db_url, "db", "upgrade")

    assert first.exit_code == 0 and f"upgraded: schema none -> {SCHEMA_REVISION}" in first.output
    again = run(db_url, "db", "upgrade")
    assert again.exit_code == 0 and "up to date" in again.output
    status = run(db_url, "db", "status")
    assert status.exit_code == 0 and f"schema {SCHEMA_REVISION}" in status.output


def test_unmigrated_postgres_is_named_and_new_sqlite_file_is_created(pg_url, tmp_path):
    result = run(pg_url, "verify")
    assert result.exit_code == 1
    assert "has no kartludo schema: run `kartludo db upgrade`" in result.output
    assert "Traceback" not in result.output
    missing = run(f"sqlite:///{tmp_path / 'new.db'}", "verify")  # a reading command creates nothing
    assert missing.exit_code == 1 and "no database file" in missing.output and not (tmp_path / "new.db").exists()
    assert run(f"sqlite:///{tmp_path / 'new.db'}", "db", "upgrade").exit_code == 0
    fresh = run(f"sqlite:///{tmp_path / 'new.db'}", "verify")
    assert fresh.exit_code == 0 and "ok: 0 events in 0 streams" in fresh.output


@pytest.mark.parametrize(
    "url, message",
    [
        ("sqlite:////no/such/folder/k.db", "folder /no/such/folder does not exist"),
        ("mysql://nobody@localhost/x", "unsupported database 'mysql'"),
        ("not a url", "not a database URL"),
        ("postgresql://postgres@127.0.0.1:1/test", "cannot open"),
        ("sqlite:////tmp/" + "a" * 300 + ".db", "File name too long"),
        ("sqlite:////tmp/" + "a" * 300 + "/k.db", "File name too long"),
    ],
)
@pytest.mark.parametrize("command", [["verify"], ["db", "upgrade"]])
def test_unreachable_database_is_one_clear_line(url, message, command):
    result = run(url, *command)
    assert result.exit_code == 1
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and message in lines[0]


def test_a_bad_pool_size_setting_is_one_clear_line_and_writes_nothing(db_url, monkeypatch):
    seed_events(db_url)
    monkeypatch.setenv("KARTLUDO_POOL_SIZE", "many")
    result = run(db_url, "match", "new", "uxinjo", "--players", "ann,bob,cy")
    assert result.exit_code == 1
    assert result.output.strip() == "error: KARTLUDO_POOL_SIZE='many': give a number of connections from 1 to 1000"
    monkeypatch.delenv("KARTLUDO_POOL_SIZE")
    listed = run(db_url, "verify")
    assert listed.exit_code == 0 and "ok: 3 events in 2 streams" in listed.output  # no match was created


def test_verify_reports_the_first_bad_event(db_url):
    seed_events(db_url)
    assert run(db_url, "verify").output.startswith("ok: 3 events in 2 streams")
    from kartludo.store.database import create_engine

    with create_engine(db_url).begin() as conn:
        conn.execute(sa.text("UPDATE events SET actor = 'eve' WHERE stream_id = 'notes-b'"))
    result = run(db_url, "verify")
    assert result.exit_code == 1
    assert "BAD stream notes-b version 1 (position" in result.output and "hash does not match" in result.output


def test_export_import_round_trip(db_url, tmp_path):
    seed_events(db_url)
    run(db_url, "key", "new")  # signed exports: the import trusts the same local key
    out = tmp_path / "log.jsonl"
    assert run(db_url, "events", "export", "-o", str(out)).exit_code == 0
    other = f"sqlite:///{tmp_path / 'other.db'}"
    result = run(other, "events", "import", str(out))
    assert result.exit_code == 0 and "imported 3 events in 2 streams (0 already present)" in result.output
    again = tmp_path / "again.jsonl"
    run(other, "events", "export", "-o", str(again))
    assert again.read_bytes() == out.read_bytes()
    one = run(db_url, "events", "export", "notes-b")
    assert one.output.count("\n") == 2 and '"stream_id":"notes-b"' in one.output  # the event, the seal
    assert one.output.splitlines()[-1].startswith('{"seal":')


def test_import_of_a_tampered_file_writes_nothing(db_url, tmp_path):
    seed_events(db_url)
    run(db_url, "key", "new")  # signed exports: the import trusts the same local key
    out = tmp_path / "log.jsonl"
    run(db_url, "events", "export", "-o", str(out))
    out.write_bytes(out.read_bytes().replace(b'"n":2', b'"n":5'))
    other = f"sqlite:///{tmp_path / 'other.db'}"
    result = run(other, "events", "import", str(out))
    # (the new file is announced on stderr first: import is a writing command)
    assert result.exit_code == 1 and "\nerror: line 2: hash does not match" in result.output
    assert run(other, "verify").output.startswith("ok: 0 events")


def test_every_command_has_help_with_an_example():
    runner = CliRunner()
    names = list(COMMANDS)
    for name in names:
        command = cli.get_command(None, name)
        subcommands = getattr(command, "commands", {})
        paths = [[name]] + [[name, sub] for sub in subcommands]
        for path in paths:
            result = runner.invoke(cli, [*path, "--help"])
            assert result.exit_code == 0, path
            assert "Example:" in result.output, f"`kartludo {' '.join(path)} --help` has no example"


@pytest.mark.parametrize("args", [
    ["events", "export", "-o", "/no/such/folder/out.jsonl"],
    ["events", "export", "-o", "/tmp/" + "a" * 300 + ".jsonl"],
    ["events", "export", "--key", "/tmp/" + "a" * 300],
])
def test_a_file_the_system_refuses_is_one_clear_line(db_url, args):
    """An output or key file that cannot be opened (no such folder, a name too long)
    is named in one error line, exit 1, never an OSError traceback."""
    assert run(db_url, "db", "upgrade").exit_code == 0
    result = run(db_url, *args)
    assert result.exit_code == 1, result.output
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and "Traceback" not in result.output, result.output
    assert ("No such file or directory" in lines[0] or "File name too long" in lines[0]
            or "cannot read the seal key" in lines[0]), lines[0]
