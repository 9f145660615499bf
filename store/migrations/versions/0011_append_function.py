"""PostgreSQL: one command's append is one call of a stored function.

An append was six statements in one message (BEGIN, the appenders' lock, the rows,
the command record, COMMIT, the transaction id read back), each parsed and planned
by the server on every append. ``kartludo_append`` does the same work in one
statement whose plans PL/pgSQL keeps per session: on 2 cores, pgbench at 16
clients did 2,200 appends/s at 780 us of server CPU each as six statements, 3,000
at 520 us as the function. The store still writes several commands at once (a
simulator's deal, an import, a series and its new match) as statements.

The function keeps the append's contract (store/postgres.py): the shared advisory
lock ``7301002 + pid % 16`` first, before the transaction has an id (a reader
finds the appenders still running by it); row ``i`` (from 0) at
``(transaction id << 16) + i``; the command record in the same transaction; the
transaction id returned.

Revision ID: 0011
Revises: 0010
Create Date: 2026-12-02
"""

from alembic import op

revision = "0011"
down_revision = "0010"
branch_labels = None
depends_on = None

# = kartludo.store.postgres.APPENDING, SPREAD and kartludo.store.schema.POSITION_ROW_BITS
# when this revision was written (a test checks the store still agrees)
APPENDING = 7301002
SPREAD = 16
ROW_BITS = 16


def upgrade() -> None:
    if op.get_bind().dialect.name != "postgresql":
        return  # SQLite writes through its own driver
    op.execute(
        f"""
        CREATE FUNCTION kartludo_append(
            p_stream text, p_first integer, p_command text, p_actor text, p_recorded_at_us bigint,
            p_types text[], p_schema_versions integer[], p_payloads bytea[], p_prev_hashes bytea[],
            p_hashes bytea[]
        ) RETURNS bigint LANGUAGE plpgsql AS $$
        DECLARE
            xid bigint;
        BEGIN
            PERFORM pg_advisory_xact_lock_shared({APPENDING} + pg_backend_pid() % {SPREAD});
            xid := pg_current_xact_id()::text::bigint;
            INSERT INTO events (position, stream_id, version, type, schema_version, payload, recorded_at_us,
                                actor, command_id, prev_hash, hash)
            SELECT (xid << {ROW_BITS}) + r.i - 1, p_stream, p_first + r.i - 1, r.type, r.schema_version,
                   r.payload, p_recorded_at_us, p_actor, p_command, r.prev_hash, r.hash
            FROM unnest(p_types, p_schema_versions, p_payloads, p_prev_hashes, p_hashes)
                 WITH ORDINALITY AS r(type, schema_version, payload, prev_hash, hash, i);
            INSERT INTO commands (stream_id, command_id, first_version, last_version)
            VALUES (p_stream, p_command, p_first, p_first + cardinality(p_types) - 1);
            RETURN xid;
        END $$
        """
    )


def downgrade() -> None:
    if op.get_bind().dialect.name != "postgresql":
        return
    op.execute("DROP FUNCTION IF EXISTS kartludo_append(text, integer, text, text, bigint, text[], integer[], "
               "bytea[], bytea[], bytea[])")
