"""PostgreSQL: appends to different streams run concurrently; followers read gap-safe.

Until now one advisory lock (0001) made every append wait for the one before it to
commit, so that sequence positions were handed out in commit order; and the NOTIFY
trigger (0003) took PostgreSQL's notification lock through every commit. Both go.
A new row's position is ``(transaction id << 16) + its index in the transaction``,
written by the store (no sequence, no default): a reader following the global order
reads only below ``pg_snapshot_xmin(pg_current_snapshot()) << 16``, which no
transaction still running can go below (see store/postgres.py). The store sends the
NOTIFY itself, after the commit.

Rows written before this revision keep their positions; the upgrade checks that they
all lie below every position a new transaction can take.

Revision ID: 0006
Revises: 0005
Create Date: 2026-12-02
"""

from alembic import op

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None

ROW_BITS = 16  # = kartludo.store.schema.POSITION_ROW_BITS when this revision was written
CHANNEL = "kartludo_events"


def upgrade() -> None:
    if op.get_bind().dialect.name != "postgresql":
        return  # SQLite keeps one writer at a time and rowid positions
    bind = op.get_bind()
    highest, first_new = bind.exec_driver_sql(
        f"SELECT max(position), pg_current_xact_id()::text::bigint << {ROW_BITS} FROM events"
    ).one()
    if highest is not None and highest >= first_new:
        raise RuntimeError(
            f"events hold position {highest}, not below {first_new}, the first position of new transactions: "
            "this database cannot switch to transaction-id positions"
        )
    op.execute("DROP TRIGGER IF EXISTS events_serialise_appends ON events")
    op.execute("DROP FUNCTION IF EXISTS kartludo_serialise_appends()")
    op.execute("DROP TRIGGER IF EXISTS events_notify_appends ON events")
    op.execute("DROP FUNCTION IF EXISTS kartludo_notify_appends()")
    sequence = bind.exec_driver_sql("SELECT pg_get_serial_sequence('events', 'position')").scalar()
    op.execute("ALTER TABLE events ALTER COLUMN position DROP DEFAULT")
    if sequence:
        op.execute(f"DROP SEQUENCE IF EXISTS {sequence}")


def downgrade() -> None:
    if op.get_bind().dialect.name != "postgresql":
        return
    bind = op.get_bind()
    highest = bind.exec_driver_sql("SELECT coalesce(max(position), 0) FROM events").scalar() or 0
    op.execute(f"CREATE SEQUENCE events_position_seq START WITH {int(highest) + 1} OWNED BY events.position")
    op.execute("ALTER TABLE events ALTER COLUMN position SET DEFAULT nextval('events_position_seq')")
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
    op.execute(
        f"""
        CREATE FUNCTION kartludo_notify_appends() RETURNS trigger
        LANGUAGE plpgsql AS $$
        BEGIN
            PERFORM pg_notify('{CHANNEL}', (SELECT max(position)::text FROM new_rows));
            RETURN NULL;
        END $$
        """
    )
    op.execute(
        "CREATE TRIGGER events_notify_appends AFTER INSERT ON events "
        "REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION kartludo_notify_appends()"
    )
