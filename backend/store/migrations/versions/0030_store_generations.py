"""store_generations: counters bumped by triggers, keys of per-process caches (issue 25)

Reads of every search that change rarely but cost CPU each time: the tag vocabulary that tag
routing matches (every `document_tags` row, 0.43 ms), the candidate chunks' rows with their
document and version (`backend/retrieval/lookup.py` chunk_infos, ~1 ms for ~76 chunks) and
the filter's collections and index record (`backend/retrieval/filter_reads.py`, ~0.3 ms). A
process may keep them while their counter is unchanged (backend/store/generation_cache.py).
The database bumps a counter by triggers, in the same transaction as the change, so every
writer is covered (the API, the CLI, another process, plain SQL, a cascade):
- `tags`: INSERT / UPDATE / DELETE of `document_tags`;
- `content`: UPDATE / DELETE of `documents`, `document_versions`, `chunks` (an INSERT adds
  rows no cache holds: chunk infos cache only rows that were found), and every change of
  `collection_documents` (a collection's "has documents") and `index_meta` (the indexes'
  schema version).
PostgreSQL: statement-level triggers (a writing transaction holds the counter row's lock
until it commits, as for `acl_generation`); SQLite: row-level (the only kind). A later SQLite
migration that rebuilds one of these tables drops its triggers with it and must create them
again (`TRIGGERS` here).

Revision ID: 0030
Revises: 0027 (the head on main when it was written)
Create Date: 2026-12-03
"""
import sqlalchemy as sa
from alembic import op

revision = '0030'
down_revision = '0027'
branch_labels = None
depends_on = None

# counter -> (table, events)
TRIGGERS = {
    "tags": [("document_tags", ("INSERT", "UPDATE", "DELETE"))],
    "content": [(t, ("UPDATE", "DELETE")) for t in ("documents", "document_versions", "chunks")]
    + [(t, ("INSERT", "UPDATE", "DELETE")) for t in ("collection_documents", "index_meta")],
}


def _bump(name: str) -> str:
    return f"UPDATE store_generations SET value = value + 1 WHERE name = '{name}'"


def upgrade() -> None:
    op.create_table('store_generations',
                    sa.Column('name', sa.String(20), primary_key=True),
                    sa.Column('value', sa.BigInteger(), nullable=False, server_default='0'))
    for name in TRIGGERS:
        op.execute(f"INSERT INTO store_generations (name, value) VALUES ('{name}', 0)")
    sqlite = op.get_bind().dialect.name == 'sqlite'
    for name, tables in TRIGGERS.items():
        if not sqlite:
            op.execute(f"CREATE FUNCTION ragscope_bump_{name}_generation() RETURNS trigger "
                       f"LANGUAGE plpgsql AS $$ BEGIN {_bump(name)}; RETURN NULL; END $$")
        for table, events in tables:
            if sqlite:
                for e in events:
                    op.execute(f"CREATE TRIGGER {table}_{name}_gen_{e.lower()} AFTER {e} ON "
                               f"{table} BEGIN {_bump(name)}; END")
            else:
                op.execute(f"CREATE TRIGGER {table}_{name}_gen AFTER {' OR '.join(events)} "
                           f"ON {table} FOR EACH STATEMENT EXECUTE FUNCTION "
                           f"ragscope_bump_{name}_generation()")


def downgrade() -> None:
    sqlite = op.get_bind().dialect.name == 'sqlite'
    for name, tables in TRIGGERS.items():
        for table, events in tables:
            if sqlite:
                for e in events:
                    op.execute(f"DROP TRIGGER IF EXISTS {table}_{name}_gen_{e.lower()}")
            else:
                op.execute(f"DROP TRIGGER IF EXISTS {table}_{name}_gen ON {table}")
        if not sqlite:
            op.execute(f"DROP FUNCTION IF EXISTS ragscope_bump_{name}_generation()")
    op.drop_table('store_generations')
