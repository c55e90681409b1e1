"""The metadata store: SQLAlchemy models, migrations and repository functions."""
from backend.store.store import Store

__all__ = ["Store"]
