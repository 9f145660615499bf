"""A partial index over the token events, so resolving a bearer token is one index probe.

The service's token index asks for token events after the last one it has seen; without
this index that query walks every event appended since (all the play of every match).

Revision ID: 0004
Revises: 0003
Create Date: 2026-11-30
"""

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None

#: must read exactly as the query's condition (SQLite matches partial indexes by the term)
TOKEN_TYPES = "type IN ('token.issued', 'token.revoked')"


def upgrade() -> None:
    op.create_index("ix_events_token_position", "events", ["position"], postgresql_where=sa.text(TOKEN_TYPES),
                    sqlite_where=sa.text(TOKEN_TYPES))


def downgrade() -> None:
    op.drop_index("ix_events_token_position", table_name="events")
