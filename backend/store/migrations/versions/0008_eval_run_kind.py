"""evaluation runs of answers: a kind per run and the answer's details per result

Revision ID: 0008
Revises: 0007
Create Date: 2026-12-01
"""
from alembic import op
import sqlalchemy as sa

revision = '0008'
down_revision = '0007'
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table('eval_runs', schema=None) as batch_op:
        batch_op.add_column(sa.Column('kind', sa.String(length=20), nullable=False,
                                      server_default='retrieval'))
        batch_op.create_index('ix_eval_runs_kind', ['kind', 'created_at'], unique=False)
    with op.batch_alter_table('eval_results', schema=None) as batch_op:
        batch_op.add_column(sa.Column('details', sa.JSON(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table('eval_results', schema=None) as batch_op:
        batch_op.drop_column('details')
    with op.batch_alter_table('eval_runs', schema=None) as batch_op:
        batch_op.drop_index('ix_eval_runs_kind')
        batch_op.drop_column('kind')
