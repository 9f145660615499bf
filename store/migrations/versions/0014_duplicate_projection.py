"""The duplicate projection: each board's match linked to its event, and each played
board's result per seat (``projections.duplicate``). New tables: the projection has no
checkpoint yet, so the next read builds it from the start of the log.

Revision ID: 0014
Revises: 0013
Create Date: 2026-12-05
"""

import sqlalchemy as sa
from alembic import op

revision = "0014"
down_revision = "0013"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "proj_duplicate_boards",
        sa.Column("match_id", sa.String(100), primary_key=True),
        sa.Column("duplicate", sa.String(100), nullable=False),
        sa.Column("board", sa.Integer(), nullable=False),
        sa.Column("table_no", sa.Integer(), nullable=False),
    )
    op.create_index("ix_proj_duplicate_boards_duplicate", "proj_duplicate_boards", ["duplicate"])
    op.create_table(
        "proj_board_results",
        sa.Column("match_id", sa.String(100), primary_key=True),
        sa.Column("seat", sa.Integer(), primary_key=True, autoincrement=False),
        sa.Column("duplicate", sa.String(100), nullable=False),
        sa.Column("board", sa.Integer(), nullable=False),
        sa.Column("table_no", sa.Integer(), nullable=False),
        sa.Column("player", sa.String(100), nullable=False),
        sa.Column("score", sa.Integer(), nullable=False),
        sa.Column("position", sa.BigInteger(), nullable=False),
    )
    op.create_index("ix_proj_board_results_duplicate", "proj_board_results", ["duplicate", "board"])


def downgrade() -> None:
    op.drop_index("ix_proj_board_results_duplicate", "proj_board_results")
    op.drop_table("proj_board_results")
    op.drop_index("ix_proj_duplicate_boards_duplicate", "proj_duplicate_boards")
    op.drop_table("proj_duplicate_boards")
    op.execute("DELETE FROM projection_checkpoints WHERE name = 'duplicate'")
