"""The event store's tables (SQLAlchemy Core). Alembic migrations create them;
``SCHEMA_REVISION`` lets read commands check a database without importing Alembic."""

from __future__ import annotations

from sqlalchemy import (
    BigInteger,
    Column,
    Index,
    Integer,
    LargeBinary,
    MetaData,
    SmallInteger,
    String,
    Table,
    UniqueConstraint,
    func,
    text,
)

#: the Alembic head revision this build expects (a test checks it against Alembic)
SCHEMA_REVISION = "0015"
#: PostgreSQL channel on which the store announces each commit to ``events``, after
#: it commits; the payload is the stream written ("*" for an import). Migration 0003
#: announced from a trigger inside the transaction; 0006 moved it to the store.
NOTIFY_CHANNEL = "kartludo_events"
#: PostgreSQL positions are ``(transaction id << POSITION_ROW_BITS) + row index`` (0006)
POSITION_ROW_BITS = 16

metadata = MetaData()

# SQLite makes an INTEGER PRIMARY KEY the rowid (cheap, max+1 under its one writer);
# PostgreSQL gets a BIGINT the store computes from the transaction id (no sequence, no
# default: see store/postgres.py and migration 0006).
Position = BigInteger().with_variant(Integer(), "sqlite")

events = Table(
    "events",
    metadata,
    Column("position", Position, primary_key=True, autoincrement=False),
    Column("stream_id", String(200), nullable=False),
    Column("version", Integer, nullable=False),
    Column("type", String(100), nullable=False),
    Column("schema_version", SmallInteger, nullable=False),
    Column("payload", LargeBinary, nullable=False),
    Column("recorded_at_us", BigInteger, nullable=False),
    Column("actor", String(200), nullable=False),
    Column("command_id", String(200), nullable=False),
    Column("prev_hash", LargeBinary(32), nullable=False),
    Column("hash", LargeBinary(32), nullable=False),
    UniqueConstraint("stream_id", "version", name="uq_events_stream_version"),
)

#: the token events' condition (migration 0004); SQLite uses a partial index only for a
#: query whose condition reads exactly so (``EventStore.select_events`` for ``app.tokens.TokenIndex``)
TOKEN_TYPES = "type IN ('token.issued', 'token.revoked')"
# Resolving a bearer token reads the token events after the last one seen: one index probe.
Index("ix_events_token_position", events.c.position, postgresql_where=text(TOKEN_TYPES),
      sqlite_where=text(TOKEN_TYPES))

# One row per accepted command: a retried command id finds its original events here.
commands = Table(
    "commands",
    metadata,
    Column("stream_id", String(200), primary_key=True),
    Column("command_id", String(200), primary_key=True),
    Column("first_version", Integer, nullable=False),
    Column("last_version", Integer, nullable=False),
    sqlite_with_rowid=False,
)

#: the caller part of a keyed command id (``k1:`` + 32 hex + ``:``; migration 0005)
CALLER_KEY_LENGTH = 36
# One request per caller key and stream: the same key with another request collides.
_KEYED = text("substr(command_id, 1, 3) = 'k1:'")
Index("uq_commands_caller_key", commands.c.stream_id, func.substr(commands.c.command_id, 1, CALLER_KEY_LENGTH),
      unique=True, sqlite_where=_KEYED, postgresql_where=_KEYED)

# The global chain (migration 0007): one entry per settled event, in global order,
# each hashing the previous entry, the event's position and its hash (store/chain.py).
chain = Table(
    "chain",
    metadata,
    Column("position", Position, primary_key=True, autoincrement=False),
    Column("n", BigInteger, nullable=False),
    Column("stream_id", String(200), nullable=False),
    Column("version", Integer, nullable=False),
    Column("hash", LargeBinary(32), nullable=False),
)

# Signed heads of the global chain (Ed25519; the key lives outside the database).
seals = Table(
    "seals",
    metadata,
    Column("seq", Integer, primary_key=True, autoincrement=False),
    Column("position", BigInteger, nullable=False),
    Column("events", BigInteger, nullable=False),
    Column("head", LargeBinary(32), nullable=False),
    Column("sealed_at_us", BigInteger, nullable=False),
    Column("key", String(64), nullable=False),
    Column("signature", LargeBinary(64), nullable=False),
)

#: folded match states (``store/snapshots.py``): derived, never events - any row may be
#: dropped and is written again on demand; ``code`` names the game, its ruleset and the
#: state's shape, and a load uses only rows of today's code (migration 0009)
snapshots = Table(
    "snapshots",
    metadata,
    Column("stream_id", String(200), primary_key=True),
    Column("code", String(200), primary_key=True),
    Column("version", Integer, primary_key=True, autoincrement=False),
    Column("event_hash", LargeBinary, nullable=False),
    Column("state", LargeBinary, nullable=False),
)

#: who watches which match, per server process (``store/presence.py``): ephemeral, never
#: events - each process rewrites its own rows every few seconds, and a row not refreshed
#: for ``presence.EXPIRY_S`` (a process that died) counts for nothing (migration 0015)
presence = Table(
    "presence",
    metadata,
    Column("process", String(100), primary_key=True),
    Column("match_id", String(100), primary_key=True),
    Column("count", Integer, nullable=False),
    Column("seen_us", BigInteger, nullable=False),
)
