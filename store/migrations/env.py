"""Alembic environment: kartludo runs migrations programmatically on a connection
it opened itself (``kartludo db upgrade``), so no alembic.ini is needed."""

from alembic import context

from kartludo.store.schema import metadata

connection = context.config.attributes["connection"]
context.configure(connection=connection, target_metadata=metadata, render_as_batch=True)
with context.begin_transaction():
    context.run_migrations()
