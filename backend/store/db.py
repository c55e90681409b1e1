"""Engine creation and schema migrations (Alembic, run in-process on open)."""
from __future__ import annotations

from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import Engine, create_engine, event

MIGRATIONS = Path(__file__).parent / "migrations"


def make_engine(url: str) -> Engine:
    if url.startswith("sqlite"):
        # A pool as large as the API's worker threads: connections beyond the pool are closed
        # when returned, and each new one runs the PRAGMAs below (measured: 4% of the API's
        # CPU under 20 concurrent clients with the default pool of 5 + 10 overflow).
        from sqlalchemy.engine import make_url

        db = make_url(url).database
        pool = {} if not db or db == ":memory:" or db.startswith("file:") else {
            "pool_size": 20, "max_overflow": 40}  # in-memory databases keep their own pool
        engine = create_engine(url, connect_args={"check_same_thread": False, "timeout": 30},
                               **pool)

        @event.listens_for(engine, "connect")
        def _pragmas(dbapi_conn, _record):  # pragma: no cover - trivial
            cur = dbapi_conn.cursor()
            cur.execute("PRAGMA foreign_keys=ON")
            cur.execute("PRAGMA journal_mode=WAL")
            cur.execute("PRAGMA synchronous=NORMAL")
            cur.close()

        return engine
    return create_engine(url, pool_pre_ping=True)


def alembic_config(engine: Engine) -> Config:
    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS))
    cfg.attributes["engine"] = engine
    return cfg


# pg_advisory_xact_lock key of the migrations ("ragscope" in ASCII, fits a bigint)
MIGRATION_LOCK = 0x72616773636F7065


def upgrade(engine: Engine, revision: str = "head") -> None:
    """Bring the schema to `revision` in place; existing data is kept. On PostgreSQL the
    migration holds an advisory lock until it commits: processes that open one fresh
    database at once (the stack's API workers) migrate one after the other, and the later
    ones find the schema at head (without it the second `CREATE TABLE alembic_version` fails
    and the worker dies at start-up)."""
    cfg = alembic_config(engine)
    with _sqlite_file_lock(engine), engine.begin() as conn:
        if engine.dialect.name == "postgresql":
            conn.exec_driver_sql(f"SELECT pg_advisory_xact_lock({MIGRATION_LOCK})")
        cfg.attributes["connection"] = conn
        command.upgrade(cfg, revision)


@contextmanager
def _sqlite_file_lock(engine: Engine) -> Iterator[None]:
    """SQLite: an exclusive flock on `<database>.migrate.lock` for the migration (pysqlite
    runs DDL outside a transaction, so two processes both create `collections`; the
    dashboard and the API of `python -m backend up` open a fresh data dir together)."""
    db = engine.url.database if engine.dialect.name == "sqlite" else None
    if not db or db == ":memory:" or db.startswith("file:"):
        yield
        return
    import fcntl
    import os

    fd = os.open(f"{db}.migrate.lock", os.O_RDWR | os.O_CREAT, 0o600)  # private as the db
    with os.fdopen(fd, "r+b") as fh:
        fcntl.flock(fh, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fh, fcntl.LOCK_UN)


def current_revision(engine: Engine) -> str | None:
    with engine.connect() as conn:
        return MigrationContext.configure(conn).get_current_revision()


def head_revision() -> str:
    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS))
    return ScriptDirectory.from_config(cfg).get_current_head()
