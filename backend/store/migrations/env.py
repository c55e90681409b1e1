"""Alembic environment. Run through backend.store.db.upgrade(); the connection is passed
in via config.attributes so no alembic.ini or URL in a file is needed."""
from alembic import context

from backend.store.models import Base

config = context.config
target_metadata = Base.metadata


def run_migrations_online() -> None:
    connection = config.attributes["connection"]
    context.configure(
        connection=connection,
        target_metadata=target_metadata,
        render_as_batch=True,  # ALTERs work on SQLite too
        compare_type=True,
    )
    with context.begin_transaction():
        context.run_migrations()


run_migrations_online()
