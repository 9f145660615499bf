"""Snapshots of folded match state, so a load folds only the events after the nearest one.

A derived table: never events, droppable, written again on demand (``store/snapshots.py``).

Revision ID: 0009
Revises: 0008
Create Date: 2026-12-03
"""

import sqlalchemy as sa
from alembic import op

revision = "0009"
down_revision = "0008"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "snapshots",
        sa.Column("stream_id", sa.String(200), primary_key=True),
        sa.Column("code", sa.String(200), primary_key=True),
        sa.Column("version", sa.Integer(), primary_key=True, autoincrement=False),
        sa.Column("event_hash", sa.LargeBinary(), nullable=False),
        sa.Column("state", sa.LargeBinary(), nullable=False),
    )


def downgrade() -> None:
    op.drop_table("snapshots")
