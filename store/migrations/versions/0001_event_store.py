"""The event store: events and accepted commands.

Revision ID: 0001
Revises:
Create Date: 2026-11-30
"""

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None

Position = sa.BigInteger().with_variant(sa.Integer(), "sqlite")


def upgrade() -> None:
    op.create_table(
        "events",
        sa.Column("position", Position, primary_key=True, autoincrement=True),
        sa.Column("stream_id", sa.String(200), nullable=False),
        sa.Column("version", sa.Integer, nullable=False),
        sa.Column("type", sa.String(100), nullable=False),
        sa.Column("schema_version", sa.SmallInteger, nullable=False),
        sa.Column("payload", sa.LargeBinary, nullable=False),
        sa.Column("recorded_at_us", sa.BigInteger, nullable=False),
        sa.Column("actor", sa.String(200), nullable=False),
        sa.Column("command_id", sa.String(200), nullable=False),
        sa.Column("prev_hash", sa.LargeBinary(32), nullable=False),
        sa.Column("hash", sa.LargeBinary(32), nullable=False),
        sa.UniqueConstraint("stream_id", "version", name="uq_events_stream_version"),
    )
    op.create_table(
        "commands",
        sa.Column("stream_id", sa.String(200), primary_key=True),
        sa.Column("command_id", sa.String(200), primary_key=True),
        sa.Column("first_version", sa.Integer, nullable=False),
        sa.Column("last_version", sa.Integer, nullable=False),
        sqlite_with_rowid=False,  # one B-tree, keyed by (stream, command id)
    )
    if op.get_bind().dialect.name == "postgresql":
        # Global order must never skip an event that commits late. Every insert into
        # `events` first takes one transaction-scoped advisory lock, so positions are
        # drawn from the sequence in commit order: a reader that has seen position n
        # has seen every committed event before it.
        op.execute(
            """
            CREATE FUNCTION kartludo_serialise_appends() RETURNS trigger
            LANGUAGE plpgsql AS $$
            BEGIN
                PERFORM pg_advisory_xact_lock(7301001);
                RETURN NULL;
            END $$
            """
        )
        op.execute(
            "CREATE TRIGGER events_serialise_appends BEFORE INSERT ON events "
            "FOR EACH STATEMENT EXECUTE FUNCTION kartludo_serialise_appends()"
        )


def downgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        op.execute("DROP TRIGGER IF EXISTS events_serialise_appends ON events")
        op.execute("DROP FUNCTION IF EXISTS kartludo_serialise_appends()")
    op.drop_table("commands")
    op.drop_table("events")
