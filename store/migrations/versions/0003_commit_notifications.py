"""PostgreSQL: announce every commit to listeners (the service's live streams).

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-30
"""

from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None

CHANNEL = "kartludo_events"


def upgrade() -> None:
    if op.get_bind().dialect.name != "postgresql":
        return  # SQLite readers poll the global position instead
    # NOTIFY is delivered at commit, so a listener never hears of an event it cannot read yet.
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


def downgrade() -> None:
    if op.get_bind().dialect.name != "postgresql":
        return
    op.execute("DROP TRIGGER IF EXISTS events_notify_appends ON events")
    op.execute("DROP FUNCTION IF EXISTS kartludo_notify_appends()")
