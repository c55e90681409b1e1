"""tag_generation: a counter bumped by triggers on every change of `document_tags` (issue 25)

Tag routing matches every query against the whole tag vocabulary (backend/retrieval/
tag_routing.py): reading it cost 0.43 ms CPU of each search. A process may keep the
vocabulary while this counter is unchanged (backend/store/generation_cache.py). The counter is
bumped by database triggers, in the same transaction as the change, on INSERT / UPDATE /
DELETE of `document_tags` (including the rows a document's deletion cascades to): every
writer (the API, the CLI, another process, plain SQL) is covered. PostgreSQL: a
statement-level trigger; SQLite: row-level (the only kind). A later SQLite migration that
rebuilds `document_tags` drops its triggers with it and must create them again.

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

BUMP = "UPDATE tag_generation SET value = value + 1 WHERE id = 1"
EVENTS = ("INSERT", "UPDATE", "DELETE")


def upgrade() -> None:
    op.create_table('tag_generation',
                    sa.Column('id', sa.Integer(), primary_key=True),
                    sa.Column('value', sa.BigInteger(), nullable=False, server_default='0'))
    op.execute("INSERT INTO tag_generation (id, value) VALUES (1, 0)")
    if op.get_bind().dialect.name == 'sqlite':
        for event in EVENTS:
            op.execute(f"CREATE TRIGGER document_tags_gen_{event.lower()} AFTER {event} "
                       f"ON document_tags BEGIN {BUMP}; END")
        return
    op.execute("CREATE FUNCTION ragscope_bump_tag_generation() RETURNS trigger "
               f"LANGUAGE plpgsql AS $$ BEGIN {BUMP}; RETURN NULL; END $$")
    op.execute("CREATE TRIGGER document_tags_gen AFTER INSERT OR UPDATE OR DELETE ON "
               "document_tags FOR EACH STATEMENT EXECUTE FUNCTION ragscope_bump_tag_generation()")


def downgrade() -> None:
    if op.get_bind().dialect.name == 'sqlite':
        for event in EVENTS:
            op.execute(f"DROP TRIGGER IF EXISTS document_tags_gen_{event.lower()}")
    else:
        op.execute("DROP TRIGGER IF EXISTS document_tags_gen ON document_tags")
        op.execute("DROP FUNCTION IF EXISTS ragscope_bump_tag_generation()")
    op.drop_table('tag_generation')
