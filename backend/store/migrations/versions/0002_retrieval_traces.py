"""retrieval traces

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-29
"""
from alembic import op
import sqlalchemy as sa

revision = '0002'
down_revision = '0001'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        'retrieval_traces',
        sa.Column('id', sa.String(length=36), nullable=False),
        sa.Column('query', sa.Text(), nullable=False),
        sa.Column('policy', sa.String(length=30), nullable=False),
        sa.Column('params', sa.JSON(), nullable=False),
        sa.Column('trace', sa.JSON(), nullable=False),
        sa.Column('hit_count', sa.Integer(), nullable=False),
        sa.Column('total_ms', sa.Float(), nullable=False),
        sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint('id'),
    )
    with op.batch_alter_table('retrieval_traces', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_retrieval_traces_created_at'), ['created_at'],
                              unique=False)


def downgrade() -> None:
    with op.batch_alter_table('retrieval_traces', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_retrieval_traces_created_at'))
    op.drop_table('retrieval_traces')
