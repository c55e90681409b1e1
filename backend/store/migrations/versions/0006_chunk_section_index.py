"""index chunks by section (section_first retrieval, structure page)

Revision ID: 0006
Revises: 0005
Create Date: 2026-11-29
"""
from alembic import op

revision = '0006'
down_revision = '0005'
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table('chunks', schema=None) as batch_op:
        batch_op.create_index('ix_chunks_section', ['section_id', 'ordinal'], unique=False)


def downgrade() -> None:
    with op.batch_alter_table('chunks', schema=None) as batch_op:
        batch_op.drop_index('ix_chunks_section')
