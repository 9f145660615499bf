"""The audit projection writes what a settlement voided once, as that event's rows.

Until now each ruling's ``voided`` column held every transfer voided for it, rewritten
(read, decoded, re-encoded) at every settlement: a long match with many standing
penalties made catching up quadratic. The column goes; ``proj_ruling_voids`` takes one
row per voided transfer, naming the rulings that voided it. The audit
projection is rewound, so the next read rebuilds it from the log.

Revision ID: 0008
Revises: 0007
Create Date: 2026-12-03
"""

import sqlalchemy as sa
from alembic import op

revision = "0008"
down_revision = "0007"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "proj_ruling_voids",
        sa.Column("match_id", sa.String(100), primary_key=True),
        sa.Column("position", sa.BigInteger(), primary_key=True),
        sa.Column("seq", sa.Integer(), primary_key=True, autoincrement=False),
        sa.Column("payer", sa.String(100), nullable=False),
        sa.Column("payee", sa.String(100), nullable=False),
        sa.Column("amount", sa.Integer(), nullable=False),
        sa.Column("reason", sa.Text(), nullable=False),
        sa.Column("rulings", sa.Text(), nullable=False),
    )
    _rewind()
    with op.batch_alter_table("proj_rulings") as batch:
        batch.drop_column("voided")


def downgrade() -> None:
    _rewind()
    with op.batch_alter_table("proj_rulings") as batch:
        batch.add_column(sa.Column("voided", sa.Text(), nullable=False, server_default="[]"))
    op.drop_table("proj_ruling_voids")


def _rewind() -> None:
    """Empty the audit projection and its checkpoint: it is rebuilt on the next read."""
    op.execute("DELETE FROM proj_ruling_history")
    op.execute("DELETE FROM proj_rulings")
    op.execute("DELETE FROM projection_checkpoints WHERE name = 'audit'")
