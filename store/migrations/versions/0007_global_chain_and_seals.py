"""A global chain over the global order, and signed seals of its head.

``chain`` holds one entry per event once the event is settled: the hash of the
previous entry, the event's position and its own (stream-chain) hash. Deleting,
inserting or moving an event anywhere before the chain's end breaks it at that
place. ``seals`` records signed heads of that chain (Ed25519, the key kept outside
the database): a rewrite of the chain before a seal no longer reaches the seal's head.
Existing events are chained by the first ``kartludo seal`` (or automatic seal).

Revision ID: 0007
Revises: 0006
Create Date: 2026-12-03
"""

import sqlalchemy as sa
from alembic import op

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None

Position = sa.BigInteger().with_variant(sa.Integer(), "sqlite")


def upgrade() -> None:
    op.create_table(
        "chain",
        sa.Column("position", Position, primary_key=True, autoincrement=False),
        sa.Column("n", sa.BigInteger, nullable=False),
        sa.Column("stream_id", sa.String(200), nullable=False),
        sa.Column("version", sa.Integer, nullable=False),
        sa.Column("hash", sa.LargeBinary(32), nullable=False),
    )
    op.create_table(
        "seals",
        sa.Column("seq", sa.Integer, primary_key=True, autoincrement=False),
        sa.Column("position", sa.BigInteger, nullable=False),
        sa.Column("events", sa.BigInteger, nullable=False),
        sa.Column("head", sa.LargeBinary(32), nullable=False),
        sa.Column("sealed_at_us", sa.BigInteger, nullable=False),
        sa.Column("key", sa.String(64), nullable=False),
        sa.Column("signature", sa.LargeBinary(64), nullable=False),
    )


def downgrade() -> None:
    op.drop_table("seals")
    op.drop_table("chain")
