"""document classification (type registry, each version's classification); Git sources

Revision ID: 0014
Revises: 0007
Create Date: 2026-12-01

* `document_types`: the document-type registry (label, category, prompt hint, heuristic
  signals, priority, default processing profile). Built-in types are inserted by the
  application when missing (backend/ingest/doctypes.py), not here, so a later release can
  add types without a migration and an admin's edits are never overwritten.
* `document_versions.primary_type`, `.processing_profile`, `.classification` (JSON: secondary
  types, traits, confidence, signals, short reasoning, method, model). Existing versions keep
  NULL (their chunks were cut the way the `generic_text` profile cuts them) until
  `python -m backend reclassify --all` fills them in.
* `git_sources`, `git_files`: repositories synchronised by `ingest-git` (last commit; each
  ingested file's blob and document), so a re-sync reads only changed files.

Follows 0008 (eval run kinds); 0009-0013 were reserved for branches that did not need them.
"""
from alembic import op
import sqlalchemy as sa

revision = '0014'
down_revision = '0008'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        'document_types',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('name', sa.String(length=50), nullable=False),
        sa.Column('label', sa.String(length=200), nullable=False),
        sa.Column('category', sa.String(length=50), nullable=False),
        sa.Column('description', sa.Text(), nullable=False),
        sa.Column('prompt_hint', sa.Text(), nullable=False),
        sa.Column('default_profile', sa.String(length=40), nullable=False),
        sa.Column('priority', sa.Integer(), nullable=False),
        sa.Column('signals', sa.JSON(), nullable=False),
        sa.Column('enabled', sa.Boolean(), nullable=False),
        sa.Column('builtin', sa.Boolean(), nullable=False),
        sa.Column('updated_at', sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint('id'),
        sa.UniqueConstraint('name'),
    )
    op.create_table(
        'git_sources',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('url', sa.String(length=2000), nullable=False),
        sa.Column('branch', sa.String(length=255), nullable=False),
        sa.Column('subpath', sa.String(length=1000), nullable=False),
        sa.Column('collection', sa.String(length=255), nullable=False),
        sa.Column('last_commit', sa.String(length=64), nullable=False),
        sa.Column('last_error', sa.Text(), nullable=True),
        sa.Column('synced_at', sa.DateTime(timezone=True), nullable=True),
        sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint('id'),
        sa.UniqueConstraint('url', 'branch', 'subpath', 'collection'),
    )
    op.create_table(
        'git_files',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('source_id', sa.Integer(), nullable=False),
        sa.Column('path', sa.String(length=2000), nullable=False),
        sa.Column('blob', sa.String(length=64), nullable=False),
        sa.Column('document_id', sa.Integer(), nullable=True),
        sa.Column('state', sa.String(length=20), nullable=False),
        sa.ForeignKeyConstraint(['source_id'], ['git_sources.id'], ondelete='CASCADE'),
        sa.PrimaryKeyConstraint('id'),
        sa.UniqueConstraint('source_id', 'path'),
    )
    with op.batch_alter_table('document_versions', schema=None) as batch_op:
        batch_op.add_column(sa.Column('primary_type', sa.String(length=50), nullable=True))
        batch_op.add_column(sa.Column('processing_profile', sa.String(length=40), nullable=True))
        batch_op.add_column(sa.Column('classification', sa.JSON(), nullable=True))
        batch_op.create_index(batch_op.f('ix_document_versions_primary_type'), ['primary_type'],
                              unique=False)


def downgrade() -> None:
    with op.batch_alter_table('document_versions', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_document_versions_primary_type'))
        batch_op.drop_column('classification')
        batch_op.drop_column('processing_profile')
        batch_op.drop_column('primary_type')
    op.drop_table('git_files')
    op.drop_table('git_sources')
    op.drop_table('document_types')
