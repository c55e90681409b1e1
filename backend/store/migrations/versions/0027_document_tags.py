"""document_tags: tags on documents (issue 26 item 5, seed 004)

One row per tag of a document: the name as entered, the case-folded key it is matched by
(unique per document), who added it and whether it was an accepted suggestion. New table
; deleting a document deletes its tags. chat_sessions.tags: a session's tag filter
(a chat setting).

Revision ID: 0027
Revises: 0024 (the head on main when it was written; the coordinator re-chains)
Create Date: 2026-12-02
"""
import sqlalchemy as sa
from alembic import op

revision = '0027'
down_revision = '0028'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        'document_tags',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('document_id', sa.Integer(), nullable=False),
        sa.Column('name', sa.String(length=50), nullable=False),
        sa.Column('key', sa.String(length=50), nullable=False),
        sa.Column('source', sa.String(length=20), nullable=False),
        sa.Column('created_by', sa.String(length=100), nullable=False),
        sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(['document_id'], ['documents.id'], ondelete='CASCADE'),
        sa.PrimaryKeyConstraint('id'),
        sa.UniqueConstraint('document_id', 'key', name='uq_document_tag_key'),
    )
    with op.batch_alter_table('document_tags', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_document_tags_document_id'), ['document_id'])
        batch_op.create_index(batch_op.f('ix_document_tags_key'), ['key'])
    with op.batch_alter_table('chat_sessions', schema=None) as batch_op:
        batch_op.add_column(sa.Column('tags', sa.JSON(), nullable=False, server_default='[]'))


def downgrade() -> None:
    with op.batch_alter_table('chat_sessions', schema=None) as batch_op:
        batch_op.drop_column('tags')
    op.drop_table('document_tags')
