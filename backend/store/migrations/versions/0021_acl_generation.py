"""acl_generation: a counter bumped by triggers on every change a scope depends on (issue 25)

Computing an actor's scope takes two queries per request (backend/security/access.py); a
process may keep the result while this counter is unchanged. The counter is bumped by
database triggers, in the same transaction as the change, on INSERT / UPDATE / DELETE of
`knowledge_bases`, `access_groups`, `access_grants`, `access_members` and on INSERT /
DELETE / UPDATE OF name, knowledge_base_id of `collections`: every writer (the dashboard,
the CLI, another process, plain SQL) is covered, and a reader that sees the new rows sees
the new value. PostgreSQL: statement-level triggers; SQLite: row-level (the only kind).
A later SQLite migration that rebuilds one of these tables (`batch_alter_table` copies it and
drops the old one) drops its triggers with it and must create them again
(`_sqlite_triggers` here).

Revision ID: 0021
Revises: 0020
Create Date: 2026-12-02
"""
import sqlalchemy as sa
from alembic import op

revision = '0021'
down_revision = '0020'
branch_labels = None
depends_on = None

BUMP = "UPDATE acl_generation SET value = value + 1 WHERE id = 1"
TABLES = ("knowledge_bases", "access_groups", "access_grants", "access_members")
COLLECTION_COLUMNS = "name, knowledge_base_id"
EVENTS = ("INSERT", "UPDATE", "DELETE")


def _sqlite_triggers() -> list[tuple[str, str, str]]:
    """(trigger name, event clause, table)."""
    out = [(f"{t}_acl_{e.lower()}", e, t) for t in TABLES for e in EVENTS]
    out += [("collections_acl_insert", "INSERT", "collections"),
            ("collections_acl_delete", "DELETE", "collections"),
            ("collections_acl_update", f"UPDATE OF {COLLECTION_COLUMNS}", "collections")]
    return out


def upgrade() -> None:
    op.create_table('acl_generation',
                    sa.Column('id', sa.Integer(), primary_key=True),
                    sa.Column('value', sa.BigInteger(), nullable=False, server_default='0'))
    op.execute("INSERT INTO acl_generation (id, value) VALUES (1, 0)")
    if op.get_bind().dialect.name == 'sqlite':
        for name, event, table in _sqlite_triggers():
            op.execute(f"CREATE TRIGGER {name} AFTER {event} ON {table} "
                       f"BEGIN {BUMP}; END")
        return
    op.execute("CREATE FUNCTION ragscope_bump_acl_generation() RETURNS trigger "
               f"LANGUAGE plpgsql AS $$ BEGIN {BUMP}; RETURN NULL; END $$")
    for table in TABLES:
        op.execute(f"CREATE TRIGGER {table}_acl AFTER INSERT OR UPDATE OR DELETE ON {table} "
                   "FOR EACH STATEMENT EXECUTE FUNCTION ragscope_bump_acl_generation()")
    op.execute("CREATE TRIGGER collections_acl AFTER INSERT OR DELETE OR UPDATE OF "
               f"{COLLECTION_COLUMNS} ON collections "
               "FOR EACH STATEMENT EXECUTE FUNCTION ragscope_bump_acl_generation()")


def downgrade() -> None:
    if op.get_bind().dialect.name == 'sqlite':
        for name, _, _ in _sqlite_triggers():
            op.execute(f"DROP TRIGGER IF EXISTS {name}")
    else:
        for table in (*TABLES, "collections"):
            op.execute(f"DROP TRIGGER IF EXISTS {table}_acl ON {table}")
        op.execute("DROP FUNCTION IF EXISTS ragscope_bump_acl_generation()")
    op.drop_table('acl_generation')
