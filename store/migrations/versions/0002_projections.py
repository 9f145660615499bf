"""Projection tables: checkpoints, matches, results, series, the audit trail.

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-30
"""

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "proj_matches",
        sa.Column("match_id", sa.String(100), primary_key=True),
        sa.Column("game", sa.String(50), nullable=False),
        sa.Column("status", sa.String(20), nullable=False),
        sa.Column("deal", sa.Integer(), nullable=False),
        sa.Column("players", sa.Text(), nullable=False),
        sa.Column("series", sa.String(100)),
        sa.Column("created_at_us", sa.BigInteger(), nullable=False),
        sa.Column("updated_at_us", sa.BigInteger(), nullable=False),
        sa.Column("finished_position", sa.BigInteger()),
    )
    op.create_table(
        "proj_results",
        sa.Column("match_id", sa.String(100), primary_key=True),
        sa.Column("player", sa.String(100), primary_key=True),
        sa.Column("game", sa.String(50), nullable=False),
        sa.Column("seat", sa.Integer(), nullable=False),
        sa.Column("players", sa.Integer(), nullable=False),
        sa.Column("score", sa.Integer(), nullable=False),
        sa.Column("rank", sa.Integer(), nullable=False),
        sa.Column("higher_is_better", sa.Boolean(), nullable=False),
        sa.Column("match_points", sa.Integer()),
        sa.Column("fouls", sa.Integer(), nullable=False),
        sa.Column("placement_points", sa.Integer(), nullable=False),
        sa.Column("final", sa.Boolean(), nullable=False),
        sa.Column("series", sa.String(100)),
        sa.Column("position", sa.BigInteger(), nullable=False),
        sa.Column("recorded_at_us", sa.BigInteger(), nullable=False),
    )
    op.create_table(
        "proj_ruling_history",
        sa.Column("audit_id", sa.String(200), primary_key=True),
        sa.Column("seq", sa.Integer(), primary_key=True, autoincrement=False),
        sa.Column("kind", sa.String(20), nullable=False),
        sa.Column("by", sa.String(100), nullable=False),
        sa.Column("reason", sa.Text(), nullable=False),
        sa.Column("position", sa.BigInteger(), nullable=False),
        sa.Column("recorded_at_us", sa.BigInteger(), nullable=False),
    )
    op.create_table(
        "proj_rulings",
        sa.Column("audit_id", sa.String(200), primary_key=True),
        sa.Column("match_id", sa.String(100), nullable=False),
        sa.Column("ruling_id", sa.String(100), nullable=False),
        sa.Column("game", sa.String(50), nullable=False),
        sa.Column("deal", sa.Integer(), nullable=False),
        sa.Column("position", sa.BigInteger(), nullable=False),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.Column("seat", sa.Integer(), nullable=False),
        sa.Column("player", sa.String(100), nullable=False),
        sa.Column("type", sa.String(100), nullable=False),
        sa.Column("rule", sa.Text(), nullable=False),
        sa.Column("facts", sa.Text(), nullable=False),
        sa.Column("effect", sa.Text(), nullable=False),
        sa.Column("series", sa.String(100)),
        sa.Column("status", sa.String(20), nullable=False),
        sa.Column("lifted_position", sa.BigInteger()),
        sa.Column("voided", sa.Text(), nullable=False),
        sa.Column("recorded_at_us", sa.BigInteger(), nullable=False),
    )
    op.create_table(
        "proj_series",
        sa.Column("series_id", sa.String(100), primary_key=True),
        sa.Column("game", sa.String(50), nullable=False),
        sa.Column("players", sa.Text(), nullable=False),
        sa.Column("minutes", sa.Integer(), nullable=False),
        sa.Column("starts_at_us", sa.BigInteger(), nullable=False),
        sa.Column("deadline_us", sa.BigInteger(), nullable=False),
        sa.Column("matches", sa.Integer(), nullable=False),
    )
    op.create_table(
        "projection_checkpoints",
        sa.Column("name", sa.String(50), primary_key=True),
        sa.Column("position", sa.BigInteger(), nullable=False),
    )
    op.create_index("ix_proj_results_game", "proj_results", ["game", "final"])
    op.create_index("ix_proj_results_series", "proj_results", ["series"])
    op.create_index("ix_proj_rulings_match", "proj_rulings", ["match_id"])


def downgrade() -> None:
    op.drop_table("projection_checkpoints")
    op.drop_table("proj_series")
    op.drop_table("proj_rulings")
    op.drop_table("proj_ruling_history")
    op.drop_table("proj_results")
    op.drop_table("proj_matches")
