"""The Alembic migrations build exactly the schema the code declares, on every backend.

``store/schema.py`` (the event store) and ``projections/schema.py`` (the read models)
declare the tables the code queries; the migrations in ``store/migrations`` create
them. A database upgraded by the migrations is compared with the declared metadata
twice: by Alembic's autogenerate comparison (tables, columns, types, nullability,
indexes, unique constraints), and by reflecting it beside a database created from the
metadata itself (``create_all``), which also compares primary keys, the partial
indexes' conditions as the backend reports them, and SQLite's WITHOUT ROWID tables.
"""

from __future__ import annotations

import re
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any
from urllib.parse import quote

import pytest
import sqlalchemy as sa
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext

from kartludo.projections.schema import metadata as projections_metadata
from kartludo.store.database import create_engine, upgrade
from kartludo.store.schema import metadata as store_metadata

METADATA = [store_metadata, projections_metadata]


@contextmanager
def empty_database(db_url: str, tmp_path) -> Iterator[str]:
    """Another empty database on the backend of ``db_url``: a file beside it, or a fresh
    schema in the same PostgreSQL database (``db_url`` names its schema as conftest does)."""
    if db_url.startswith("sqlite"):
        yield f"sqlite:///{tmp_path / 'declared.db'}"
        return
    import psycopg

    schema = "kt_" + uuid.uuid4().hex[:12]
    with psycopg.connect(db_url, autocommit=True) as conn:
        conn.execute(f"CREATE SCHEMA {schema}")
    url, found = re.subn(r"options=[^&]*", f"options={quote(f'-csearch_path={schema}')}", db_url)
    assert found == 1, db_url
    try:
        yield url
    finally:
        with psycopg.connect(db_url, autocommit=True) as conn:
            conn.execute(f"DROP SCHEMA {schema} CASCADE")


def _where(dialect: str, options: dict[str, Any]) -> str | None:
    where = options.get(f"{dialect}_where")
    return None if where is None else re.sub(r"\s+", " ", str(where)).strip()


def reflect(engine: sa.Engine) -> dict[str, Any]:
    """Every table's structure as the backend reports it (without Alembic's own table)."""
    dialect = engine.dialect.name
    out: dict[str, Any] = {}
    with engine.connect() as conn:
        inspector = sa.inspect(conn)
        for table in sorted(inspector.get_table_names()):
            if table == "alembic_version":
                continue
            columns = [(c["name"], str(c["type"]), c["nullable"]) for c in inspector.get_columns(table)]
            indexes = sorted(
                (ix["name"], tuple(ix["column_names"]), bool(ix["unique"]),
                 _where(dialect, ix.get("dialect_options", {})))
                for ix in inspector.get_indexes(table)
                if not ix.get("duplicates_constraint")  # the index backing a unique constraint
            )
            described = {
                "columns": columns,
                "primary key": inspector.get_pk_constraint(table)["constrained_columns"],
                "unique": sorted((u["name"], tuple(u["column_names"]))
                                 for u in inspector.get_unique_constraints(table)),
                "indexes": indexes,
                "checks": sorted(c["sqltext"] for c in inspector.get_check_constraints(table)),
                "foreign keys": inspector.get_foreign_keys(table),
            }
            if dialect == "sqlite":
                sql = conn.exec_driver_sql("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = ?",
                                           (table,)).scalar_one()
                described["without rowid"] = "WITHOUT ROWID" in sql.upper()
            out[table] = described
    return out


def test_migrations_match_the_declared_metadata(db_url, tmp_path):
    migrated = create_engine(db_url)
    upgrade(migrated)
    with migrated.connect() as conn:
        context = MigrationContext.configure(conn, opts={"compare_type": True, "compare_server_default": True})
        differences = compare_metadata(context, METADATA)
    assert differences == [], (
        "the migrations and the metadata differ (add a migration, or fix the schema module):\n"
        + "\n".join(map(str, differences)))

    with empty_database(db_url, tmp_path) as declared_url:
        declared = create_engine(declared_url)
        for metadata in METADATA:
            metadata.create_all(declared)
        by_migrations, by_metadata = reflect(migrated), reflect(declared)
        declared.dispose()
    migrated.dispose()
    assert sorted(by_migrations) == sorted(by_metadata)
    for table, described in by_metadata.items():
        assert by_migrations[table] == described, table
    # what this comparison is worth: it sees the partial token index and its condition
    token_index = [ix for ix in by_migrations["events"]["indexes"] if ix[0] == "ix_events_token_position"]
    assert len(token_index) == 1 and "token.issued" in token_index[0][3] and "token.revoked" in token_index[0][3]


def test_a_missing_index_is_reported(db_url):
    """The comparison is not blind: metadata with an index the migrations never made differs."""
    engine = create_engine(db_url)
    upgrade(engine)
    extra = sa.MetaData()
    for metadata in METADATA:
        for table in metadata.tables.values():
            table.to_metadata(extra)
    sa.Index("ix_not_migrated", extra.tables["events"].c.actor)
    with engine.connect() as conn:
        differences = compare_metadata(MigrationContext.configure(conn), extra)
    engine.dispose()
    assert [(d[0], d[1].name) for d in differences] == [("add_index", "ix_not_migrated")]


@pytest.mark.parametrize("table", sorted(t for m in METADATA for t in m.tables))
def test_every_declared_table_has_a_primary_key(table):
    metadata = next(m for m in METADATA if table in m.tables)
    assert metadata.tables[table].primary_key.columns
