"""PostgreSQL: the appenders' lock names the store's schema.

Every transaction that writes events takes a shared advisory lock first, and a reader
finds the appenders still running by it (store/postgres.py ``HORIZON``). The lock was
``7301002 + pid % 16`` in the whole database, so stores in two schemas of one
database shared it: a long import into one held back every reader of the other for
as long as it ran. It is now the two-key lock ``(hashtext(current_schema()),
7301002 + pid % 16)``; this revision rewrites the append function (0011) to take it,
changing that one call and nothing else of the function.

Stop every kartludo process before upgrading: a process of the old code takes the
old lock, which a reader of the new code does not look for.

Revision ID: 0012
Revises: 0011
Create Date: 2026-12-02
"""

from alembic import op

revision = "0012"
down_revision = "0011"
branch_labels = None
depends_on = None

# = kartludo.store.postgres.APPENDERS_LOCK when this revision was written (a test checks
# the store still agrees), and the call 0011 wrote
OLD_LOCK = "pg_advisory_xact_lock_shared(7301002 + pg_backend_pid() % 16)"
NEW_LOCK = "pg_advisory_xact_lock_shared(hashtext(current_schema()), 7301002 + pg_backend_pid() % 16)"


def _rewrite(old: str, new: str) -> None:
    """The function as the server holds it, with its lock call ``old`` made ``new``."""
    conn = op.get_bind()
    body = conn.exec_driver_sql("SELECT pg_get_functiondef('kartludo_append'::regproc)").scalar_one()
    if body.count(old) != 1:
        raise RuntimeError(f"kartludo_append does not call {old} once: it is not the function 0011 wrote")
    conn.exec_driver_sql(body.replace(old, new).replace("%", "%%"))


def upgrade() -> None:
    if op.get_bind().dialect.name != "postgresql":
        return  # SQLite has one writer at a time and no such lock
    _rewrite(OLD_LOCK, NEW_LOCK)


def downgrade() -> None:
    if op.get_bind().dialect.name != "postgresql":
        return
    _rewrite(NEW_LOCK, OLD_LOCK)
