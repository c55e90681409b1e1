"""document_versions.content_sha256: the hash of a version's bytes, no longer unique

Deduplication may only link content the uploader can already read (docs/security.md); a
byte-identical upload of a document the uploader cannot read becomes a document of its
own, so two versions can hold the same bytes. `sha256` stays the unique version key (the
content hash, or for such a private copy a key derived from it); `content_sha256` is the
content hash of every version, indexed, not unique. Added in place (no table rebuild:
SQLite would cascade-delete the chunks of every version with foreign keys on).

Revision ID: 0019
Revises: 0018
Create Date: 2026-12-01
"""
import sqlalchemy as sa
from alembic import op

revision = '0019'
down_revision = '0018'
branch_labels = None
depends_on = None


def upgrade() -> None:
    if op.get_bind().dialect.name == 'sqlite':
        op.execute('ALTER TABLE document_versions ADD COLUMN content_sha256 VARCHAR(64)')
    else:
        op.add_column('document_versions',
                      sa.Column('content_sha256', sa.String(length=64), nullable=True))
    op.execute('UPDATE document_versions SET content_sha256 = sha256')
    op.create_index('ix_document_versions_content_sha256', 'document_versions',
                    ['content_sha256'], unique=False)


def downgrade() -> None:
    op.drop_index('ix_document_versions_content_sha256', table_name='document_versions')
    with op.batch_alter_table('document_versions', schema=None) as batch_op:
        batch_op.drop_column('content_sha256')
