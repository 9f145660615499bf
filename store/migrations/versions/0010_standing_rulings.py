"""A voided transfer no longer names the rulings that voided it.

Each row of ``proj_ruling_voids`` listed every ruling standing against the payee: on a
long match with many standing penalties, each settlement wrote hundreds of ids, and the
table grew with the square of the match. A ruling row now says instead whether its
penalty stood (``stood``) and until which event (``standing_until``): the transfers it
voided are the void rows to its player between the two. The audit projection is
rewound, so the next read rebuilds it from the log.

Revision ID: 0010
Revises: 0009
Create Date: 2026-12-01
"""

import sqlalchemy as sa
from alembic import op

revision = "0010"
down_revision = "0009"
branch_labels = None
depends_on = None


def upgrade() -> None:
    _rewind()
    with op.batch_alter_table("proj_rulings") as batch:
        batch.add_column(sa.Column("stood", sa.Boolean(), nullable=False, server_default=sa.false()))
        batch.add_column(sa.Column("standing_until", sa.BigInteger()))
    with op.batch_alter_table("proj_ruling_voids") as batch:
        batch.drop_column("rulings")


def downgrade() -> None:
    _rewind()
    with op.batch_alter_table("proj_ruling_voids") as batch:
        batch.add_column(sa.Column("rulings", sa.Text(), nullable=False, server_default="[]"))
    with op.batch_alter_table("proj_rulings") as batch:
        batch.drop_column("standing_until")
        batch.drop_column("stood")


def _rewind() -> None:
    """Empty the audit projection and its checkpoint: it is rebuilt on the next read."""
    op.execute("DELETE FROM proj_ruling_voids")
    op.execute("DELETE FROM proj_ruling_history")
    op.execute("DELETE FROM proj_rulings")
    op.execute("DELETE FROM projection_checkpoints WHERE name = 'audit'")
