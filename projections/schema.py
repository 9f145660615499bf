"""Read-model tables built by the projections (created by migration 0002).

Every table is derived from the event log: dropping and rebuilding gives the
same rows. JSON-ish columns hold msgspec-encoded JSON text.
"""

from __future__ import annotations

from sqlalchemy import BigInteger, Boolean, Column, Index, Integer, MetaData, String, Table, Text
from sqlalchemy import false as sa_false

metadata = MetaData()

checkpoints = Table(
    "projection_checkpoints",
    metadata,
    Column("name", String(50), primary_key=True),
    Column("position", BigInteger, nullable=False),
)

matches = Table(
    "proj_matches",
    metadata,
    Column("match_id", String(100), primary_key=True),
    Column("game", String(50), nullable=False),
    Column("status", String(20), nullable=False),
    Column("deal", Integer, nullable=False),
    Column("players", Text, nullable=False),
    Column("series", String(100)),
    Column("created_at_us", BigInteger, nullable=False),
    Column("updated_at_us", BigInteger, nullable=False),
    Column("finished_position", BigInteger),
)

results = Table(
    "proj_results",
    metadata,
    Column("match_id", String(100), primary_key=True),
    Column("player", String(100), primary_key=True),
    Column("game", String(50), nullable=False),
    Column("seat", Integer, nullable=False),
    Column("players", Integer, nullable=False),
    Column("score", Integer, nullable=False),
    Column("rank", Integer, nullable=False),
    Column("higher_is_better", Boolean, nullable=False),
    Column("match_points", Integer),
    Column("fouls", Integer, nullable=False),
    Column("placement_points", Integer, nullable=False),
    Column("final", Boolean, nullable=False),
    Column("series", String(100)),
    Column("position", BigInteger, nullable=False),
    Column("recorded_at_us", BigInteger, nullable=False),
)
Index("ix_proj_results_game", results.c.game, results.c.final)
Index("ix_proj_results_series", results.c.series)

series = Table(
    "proj_series",
    metadata,
    Column("series_id", String(100), primary_key=True),
    Column("game", String(50), nullable=False),
    Column("players", Text, nullable=False),
    Column("minutes", Integer, nullable=False),
    Column("starts_at_us", BigInteger, nullable=False),
    Column("deadline_us", BigInteger, nullable=False),
    Column("matches", Integer, nullable=False),
)

rulings = Table(
    "proj_rulings",
    metadata,
    Column("audit_id", String(200), primary_key=True),
    Column("match_id", String(100), nullable=False),
    Column("ruling_id", String(100), nullable=False),
    Column("game", String(50), nullable=False),
    Column("deal", Integer, nullable=False),
    Column("position", BigInteger, nullable=False),
    Column("version", Integer, nullable=False),
    Column("seat", Integer, nullable=False),
    Column("player", String(100), nullable=False),
    Column("type", String(100), nullable=False),
    Column("rule", Text, nullable=False),
    Column("facts", Text, nullable=False),
    Column("effect", Text, nullable=False),
    Column("series", String(100)),
    Column("status", String(20), nullable=False),
    Column("lifted_position", BigInteger),
    Column("recorded_at_us", BigInteger, nullable=False),
    #: its penalty stood (voiding what its player was paid) from the ruling's own
    #: position until ``standing_until`` (the event that lifted or ended it; NULL:
    #: standing still), both included (migration 0010)
    Column("stood", Boolean, nullable=False, server_default=sa_false()),
    Column("standing_until", BigInteger),
)
Index("ix_proj_rulings_match", rulings.c.match_id)

ruling_history = Table(
    "proj_ruling_history",
    metadata,
    Column("audit_id", String(200), primary_key=True),
    Column("seq", Integer, primary_key=True),
    Column("kind", String(20), nullable=False),
    Column("by", String(100), nullable=False),
    Column("reason", Text, nullable=False),
    Column("position", BigInteger, nullable=False),
    Column("recorded_at_us", BigInteger, nullable=False),
)

#: what a settlement voided: one row per voided transfer, written once per event (migration
#: 0008); the rulings that voided it are those standing against its payee then (0010)
ruling_voids = Table(
    "proj_ruling_voids",
    metadata,
    Column("match_id", String(100), primary_key=True),
    Column("position", BigInteger, primary_key=True),
    Column("seq", Integer, primary_key=True, autoincrement=False),
    Column("payer", String(100), nullable=False),
    Column("payee", String(100), nullable=False),
    Column("amount", Integer, nullable=False),
    Column("reason", Text, nullable=False),
)

#: duplicate boards: which event, board and table each board's match is (migration 0014)
duplicate_boards = Table(
    "proj_duplicate_boards",
    metadata,
    Column("match_id", String(100), primary_key=True),
    Column("duplicate", String(100), nullable=False),
    Column("board", Integer, nullable=False),
    Column("table_no", Integer, nullable=False),
)
Index("ix_proj_duplicate_boards_duplicate", duplicate_boards.c.duplicate)

#: a played board's result at each seat: the game's own total after its one deal, as the
#: board's match stands (a later ruling rewrites it); a board still in play has no rows
board_results = Table(
    "proj_board_results",
    metadata,
    Column("match_id", String(100), primary_key=True),
    Column("seat", Integer, primary_key=True, autoincrement=False),
    Column("duplicate", String(100), nullable=False),
    Column("board", Integer, nullable=False),
    Column("table_no", Integer, nullable=False),
    Column("player", String(100), nullable=False),
    Column("score", Integer, nullable=False),
    Column("position", BigInteger, nullable=False),
)
Index("ix_proj_board_results_duplicate", board_results.c.duplicate, board_results.c.board)
