"""knowledge bases and access groups

Revision ID: 0016
Revises: 0015
Create Date: 2026-12-01

* `knowledge_bases`; `collections.knowledge_base_id` (every collection belongs to one).
  Existing collections go into the knowledge base `default`. (SQLite: added in place and
  nullable there, see upgrade(); PostgreSQL: NOT NULL with a foreign key.)
* Documents that are in no collection (ingested without `--collection` before this release)
  are linked to the collection `default` (in knowledge base `default`): access is granted
  per knowledge base, so a document outside every collection would be visible to admins only.
* `access_groups`, `access_grants` (group -> knowledge base, "read" | "write"),
  `access_members` (group -> "user" | "principal" + name).
* The group `everyone` (all_users: every dashboard user is a member) gets `write` on
  `default`: an existing install keeps working as before (viewers read everything, editors
  change what their role allows). See docs/security.md.

(Numbered 0016: 0009-0013 were taken by other branches; the chain is 0007 → 0008 → 0014 →
0015 → 0016 → 0017.)
"""
from alembic import op
import sqlalchemy as sa

revision = '0016'
down_revision = '0015'
branch_labels = None
depends_on = None

DEFAULT = 'default'
EVERYONE = 'everyone'


def upgrade() -> None:
    op.create_table(
        'knowledge_bases',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('name', sa.String(length=200), nullable=False),
        sa.Column('description', sa.Text(), nullable=False),
        sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint('id'),
        sa.UniqueConstraint('name'),
    )
    op.create_table(
        'access_groups',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('name', sa.String(length=200), nullable=False),
        sa.Column('description', sa.Text(), nullable=False),
        sa.Column('all_users', sa.Boolean(), nullable=False),
        sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint('id'),
        sa.UniqueConstraint('name'),
    )
    op.create_table(
        'access_grants',
        sa.Column('group_id', sa.Integer(), nullable=False),
        sa.Column('knowledge_base_id', sa.Integer(), nullable=False),
        sa.Column('permission', sa.String(length=10), nullable=False),
        sa.ForeignKeyConstraint(['group_id'], ['access_groups.id'], ondelete='CASCADE'),
        sa.ForeignKeyConstraint(['knowledge_base_id'], ['knowledge_bases.id'],
                                ondelete='CASCADE'),
        sa.PrimaryKeyConstraint('group_id', 'knowledge_base_id'),
    )
    op.create_index('ix_access_grants_knowledge_base_id', 'access_grants',
                    ['knowledge_base_id'], unique=False)
    op.create_table(
        'access_members',
        sa.Column('group_id', sa.Integer(), nullable=False),
        sa.Column('member_kind', sa.String(length=20), nullable=False),
        sa.Column('member_name', sa.String(length=200), nullable=False),
        sa.Column('added_at', sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(['group_id'], ['access_groups.id'], ondelete='CASCADE'),
        sa.PrimaryKeyConstraint('group_id', 'member_kind', 'member_name'),
    )
    op.create_index('ix_access_members_member', 'access_members',
                    ['member_kind', 'member_name'], unique=False)

    conn = op.get_bind()
    now = sa.func.now()
    kbs = sa.table('knowledge_bases', sa.column('id', sa.Integer), sa.column('name', sa.String),
                   sa.column('description', sa.Text),
                   sa.column('created_at', sa.DateTime(timezone=True)))
    conn.execute(kbs.insert().values(name=DEFAULT, created_at=now,
                                     description='Collections that existed before knowledge '
                                                 'bases, and new ones unless told otherwise.'))
    kb_id = conn.scalar(sa.select(kbs.c.id).where(kbs.c.name == DEFAULT))

    if conn.dialect.name == 'sqlite':
        # No batch mode here: it rebuilds `collections`, and dropping the old table with
        # foreign keys on (as ragscope's engine sets them) would cascade-delete every row of
        # collection_documents. SQLite adds a REFERENCES column in place when it may be
        # NULL, so the column stays nullable there; the application always sets it.
        conn.execute(sa.text(
            'ALTER TABLE collections ADD COLUMN knowledge_base_id INTEGER '
            'REFERENCES knowledge_bases (id) ON DELETE RESTRICT'))
        conn.execute(sa.text('UPDATE collections SET knowledge_base_id = :kb'), {'kb': kb_id})
    else:
        op.add_column('collections', sa.Column('knowledge_base_id', sa.Integer(), nullable=True))
        conn.execute(sa.text('UPDATE collections SET knowledge_base_id = :kb'), {'kb': kb_id})
        op.alter_column('collections', 'knowledge_base_id', existing_type=sa.Integer(),
                        nullable=False)
        op.create_foreign_key('fk_collections_knowledge_base_id', 'collections',
                              'knowledge_bases', ['knowledge_base_id'], ['id'],
                              ondelete='RESTRICT')
    op.create_index('ix_collections_knowledge_base_id', 'collections', ['knowledge_base_id'],
                    unique=False)

    orphans = list(conn.scalars(sa.text(
        'SELECT id FROM documents WHERE id NOT IN (SELECT document_id FROM collection_documents)')))
    if orphans:
        coll_id = conn.scalar(sa.text('SELECT id FROM collections WHERE name = :n'), {'n': DEFAULT})
        if coll_id is None:
            conn.execute(sa.text(
                'INSERT INTO collections (name, description, created_at, knowledge_base_id) '
                'VALUES (:n, :d, CURRENT_TIMESTAMP, :kb)'),
                {'n': DEFAULT, 'kb': kb_id, 'd': 'Documents ingested without a collection.'})
            coll_id = conn.scalar(sa.text('SELECT id FROM collections WHERE name = :n'),
                                  {'n': DEFAULT})
        for i in range(0, len(orphans), 500):
            conn.execute(sa.text(
                'INSERT INTO collection_documents (collection_id, document_id, added_at) '
                'VALUES (:c, :d, CURRENT_TIMESTAMP)'),
                [{'c': coll_id, 'd': d} for d in orphans[i:i + 500]])

    conn.execute(sa.text(
        'INSERT INTO access_groups (name, description, all_users, created_at) '
        'VALUES (:n, :d, :t, CURRENT_TIMESTAMP)'),
        {'n': EVERYONE, 't': True,
         'd': 'Every dashboard user (created by migration 0016 so an existing install keeps '
              'working); untick "all users" or change its grants to restrict access.'})
    group_id = conn.scalar(sa.text('SELECT id FROM access_groups WHERE name = :n'),
                           {'n': EVERYONE})
    conn.execute(sa.text('INSERT INTO access_grants (group_id, knowledge_base_id, permission) '
                         'VALUES (:g, :kb, :p)'), {'g': group_id, 'kb': kb_id, 'p': 'write'})


def downgrade() -> None:
    """On SQLite this rebuilds `collections`: run it on a connection with foreign keys off,
    or collection_documents loses its rows (see upgrade)."""
    op.drop_index('ix_collections_knowledge_base_id', table_name='collections')
    if op.get_bind().dialect.name == 'sqlite':
        with op.batch_alter_table('collections', schema=None) as batch_op:
            batch_op.drop_column('knowledge_base_id')
    else:
        op.drop_constraint('fk_collections_knowledge_base_id', 'collections',
                           type_='foreignkey')
        op.drop_column('collections', 'knowledge_base_id')
    op.drop_index('ix_access_members_member', table_name='access_members')
    op.drop_table('access_members')
    op.drop_index('ix_access_grants_knowledge_base_id', table_name='access_grants')
    op.drop_table('access_grants')
    op.drop_table('access_groups')
    op.drop_table('knowledge_bases')
