"""Idempotency keys belong to their caller and their request.

The service stores a caller's key as the command id ``k1:<caller key>:<request>``
(``app.matches.creation.scoped_command_id``): 32 hex digits of a hash of the caller's scope
and key, then 32 of a hash of the request. The primary key (stream, command id)
makes an exact retry a duplicate; this index makes the same caller key with another
request collide too, so it is refused instead of applied as a new command.

Revision ID: 0005
Revises: 0004
Create Date: 2026-11-30
"""

from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None

#: the same statement on SQLite and PostgreSQL (an expression index, partial: only keyed ids)
CREATE = ("CREATE UNIQUE INDEX uq_commands_caller_key ON commands (stream_id, substr(command_id, 1, 36)) "
          "WHERE substr(command_id, 1, 3) = 'k1:'")


def upgrade() -> None:
    op.execute(CREATE)


def downgrade() -> None:
    op.drop_index("uq_commands_caller_key", table_name="commands")
