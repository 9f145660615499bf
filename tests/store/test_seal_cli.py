"""``kartludo key``, ``seal``, ``verify --trust/--head`` and ``events import`` flags, through
click's CliRunner on every backend."""

from __future__ import annotations

import json
import os
import stat

import sqlalchemy as sa
from click.testing import CliRunner

from kartludo.cli.main import cli
from kartludo.store.database import create_engine


def seed(k) -> str:
    """A match with a deal, and a TD token."""
    match_id = k("match", "new", "uxinjo", "--players", "ann,bob,cy", "--seed", "5").strip()
    k("match", "deal", match_id)
    k("token", "new", "--role", "td", "--label", "mia")
    return match_id


def test_key_new_show_and_refusals(k, tmp_path):
    out = k("key", "new")
    path = os.path.join(os.environ["XDG_CONFIG_HOME"], "kartludo", "seal.key")
    public = out.split("public key: ")[1].strip()
    assert f"created {path}" in out and len(public) == 64
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
    assert k("key", "show").strip() == public
    assert "already holds a key" in k("key", "new", code=1)
    other = tmp_path / "other.key"
    assert k("key", "new", "--key", str(other)).split("public key: ")[1].strip() != public
    assert json.loads(k("key", "show", "--key", str(other), "--json"))["path"] == str(other)
    assert "no seal key at" in k("key", "show", "--key", str(tmp_path / "none.key"), code=1)
    os.environ["KARTLUDO_KEY"] = str(other)
    try:
        assert k("key", "show").strip() != public  # the environment names the key
    finally:
        del os.environ["KARTLUDO_KEY"]


def test_seal_and_verify_with_a_written_down_head(k, db_url, tmp_path):
    seed(k)
    assert "kartludo key new" in k("seal", code=1)
    k("key", "new")
    first = k("seal")
    assert first.startswith("sealed: seal #1") and "head: " in first
    assert k("seal").startswith("already sealed")
    head = k("seal", "--print").strip()
    position, events, digest = head.split(":")
    sealed = json.loads(k("seal", "--json"))
    assert sealed["written_down"] == head and sealed["events"] == int(events) and sealed["seq"] == 1
    out = k("verify", "--head", head, "--no-fold")
    assert "seals: 1 signed by a trusted key" in out and "written-down heads reached: 1" in out
    from kartludo.store.transfer import format_us

    assert f"{head} (sealed {format_us(sealed['sealed_at_us'])})" in out  # when the seals stopped, visibly
    assert json.loads(k("verify", "--json", "--no-fold"))["newest_sealed_at"] == format_us(sealed["sealed_at_us"])
    assert "BAD written-down head" in k("verify", "--head", f"{position}:{events}:{'0' * 64}", code=1)
    assert "not a head" in k("verify", "--head", "12:zz", code=1)
    other = k("key", "new", "--key", str(tmp_path / "td2.key")).split("public key: ")[1].strip()
    assert "not trusted" in k("verify", "--trust", other, code=1)
    assert "not an Ed25519 public key" in k("verify", "--trust", "abc", code=1)
    # the newest event deleted: verify names it
    with create_engine(db_url).begin() as conn:
        conn.execute(sa.text("DELETE FROM events WHERE position = :p"), {"p": int(position)})
    bad = k("verify", code=1)
    assert f"(position {position}): missing" in bad


def test_import_flags(k, db_url, tmp_path):
    seed(k)
    k("key", "new")
    signed, unsigned, tokens = tmp_path / "s.jsonl", tmp_path / "u.jsonl", tmp_path / "t.jsonl"
    k("events", "export", "-o", str(signed))
    k("events", "export", "-o", str(tokens), "--with-tokens")
    assert b'"type":"token.issued"' not in signed.read_bytes() and b'"type":"token.issued"' in tokens.read_bytes()
    unsigned.write_bytes(b"\n".join(signed.read_bytes().splitlines()[:-1]) + b"\n")
    runner = CliRunner()
    other = f"sqlite:///{tmp_path / 'other.db'}"

    def imp(*args: str, code: int = 0) -> str:
        result = runner.invoke(cli, ["--db", other, "events", "import", *args])
        assert result.exit_code == code, result.output
        return result.output

    def count() -> int:
        out = runner.invoke(cli, ["--db", other, "verify", "--json", "--no-fold"]).output
        return json.loads(out)["events"]

    assert "not signed" in imp(str(unsigned), code=1)
    assert "credential" in imp(str(tokens), code=1)
    assert "only from a signed export" in imp(str(tokens), "--with-tokens", "--unsigned", code=1)
    stranger = runner.invoke(cli, ["key", "new", "--key", str(tmp_path / "x.key")]).output
    assert "not trusted" in imp(str(signed), "--trust", stranger.split("public key: ")[1].strip(), code=1)
    assert count() == 0  # every refusal wrote nothing
    assert "imported" in imp(str(unsigned), "--unsigned")
    assert "imported" in imp(str(tokens), "--with-tokens")
    assert count() == json.loads(k("verify", "--json", "--no-fold"))["events"]


def test_verify_names_an_edited_snapshot(k, db_url):
    """A snapshot is outside every hash, and `state` folds from it: an attacker who
    renames a player there changes what `state` shows; `verify` names the row."""
    import msgspec

    k("simulate", "uxinjo", "--matches", "1", "--seed", "4")
    match_id = json.loads(k("match", "list", "--json"))[0]["match"]
    assert "snapshots are their match's fold" in k("verify")
    engine = create_engine(db_url)
    with engine.begin() as conn:
        sid, code, version, state = conn.execute(sa.text(
            "SELECT stream_id, code, version, state FROM snapshots ORDER BY version DESC LIMIT 1")).one()
        decoded = msgspec.msgpack.decode(bytes(state))
        decoded[0]["players"][0] = "mallory"
        conn.execute(sa.text("UPDATE snapshots SET state = :v WHERE stream_id = :s AND code = :c AND version = :n"),
                     {"v": msgspec.msgpack.encode(decoded), "s": sid, "c": code, "n": version})
    assert "mallory" in k("state", match_id)  # what the attack is for
    bad = k("verify", code=1)
    assert f"BAD snapshot of {sid} at version {version}: is not the match folded from its events" in bad
