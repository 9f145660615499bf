"""PostgreSQL: an append must follow its stream's head, checked inside its transaction.

An append names the version it follows (``expected_version``) and the hash it chains
to. The unique (stream, version) index refused a second writer of one version, but
nothing refused a writer whose head was gone: after a failover to an asynchronous
standby that had lost a stream's newest events, a service still holding the match
as it was appended version 7 after 5 (the fault suite saw it). ``kartludo_follows``
refuses, with the unique-violation code the store already turns into a
``ConcurrencyConflict``, a first row whose previous version is missing or has another
hash than the row's ``prev_hash``. The append function (0011, 0012) calls it once,
after its rows; the statements path and imports call it per command. One index
lookup per append.

Stop every kartludo process before upgrading: the old code does not call it, and the
new code calls a function an older schema does not have.

Revision ID: 0013
Revises: 0012
Create Date: 2026-12-04
"""

from alembic import op

revision = "0013"
down_revision = "0012"
branch_labels = None
depends_on = None

# the call 0012 left in kartludo_append, and what follows it: the rows' INSERT ends
# with "AS r(type, schema_version, payload, prev_hash, hash, i);"
AFTER_ROWS = "WITH ORDINALITY AS r(type, schema_version, payload, prev_hash, hash, i);"
FOLLOWS = "PERFORM kartludo_follows(p_stream, p_first);"


def _rewrite(old: str, new: str) -> None:
    conn = op.get_bind()
    body = conn.exec_driver_sql("SELECT pg_get_functiondef('kartludo_append'::regproc)").scalar_one()
    if body.count(old) != 1:
        raise RuntimeError(f"kartludo_append does not hold {old!r} once: it is not the function 0012 left")
    conn.exec_driver_sql(body.replace(old, new).replace("%", "%%"))


def upgrade() -> None:
    if op.get_bind().dialect.name != "postgresql":
        return  # SQLite's driver checks the same in its write transaction
    op.execute(
        """
        CREATE FUNCTION kartludo_follows(p_stream text, p_version integer) RETURNS void
        LANGUAGE plpgsql AS $$
        BEGIN
            IF p_version > 1 AND NOT EXISTS (
                SELECT 1 FROM events a JOIN events b
                  ON b.stream_id = a.stream_id AND b.version = a.version - 1 AND b.hash = a.prev_hash
                WHERE a.stream_id = p_stream AND a.version = p_version) THEN
                RAISE EXCEPTION 'stream % version % does not follow the stream''s version %',
                    p_stream, p_version, p_version - 1 USING ERRCODE = 'unique_violation';
            END IF;
        END $$
        """
    )
    _rewrite(AFTER_ROWS, AFTER_ROWS + "\n            " + FOLLOWS)


def downgrade() -> None:
    if op.get_bind().dialect.name != "postgresql":
        return
    _rewrite(AFTER_ROWS + "\n            " + FOLLOWS, AFTER_ROWS)
    op.execute("DROP FUNCTION IF EXISTS kartludo_follows(text, integer)")
