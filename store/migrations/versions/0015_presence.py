"""Presence: each server process's open watcher streams per match (``store.presence``), so
that a match's watchers are counted across ``serve --workers N`` processes. Ephemeral rows,
never events: a process rewrites its own every few seconds; stale ones count for nothing.

Revision ID: 0015
Revises: 0014
Create Date: 2026-12-05
"""

import sqlalchemy as sa
from alembic import op

revision = "0015"
down_revision = "0014"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "presence",
        sa.Column("process", sa.String(100), primary_key=True),
        sa.Column("match_id", sa.String(100), primary_key=True),
        sa.Column("count", sa.Integer(), nullable=False),
        sa.Column("seen_us", sa.BigInteger(), nullable=False),
    )


def downgrade() -> None:
    op.drop_table("presence")
