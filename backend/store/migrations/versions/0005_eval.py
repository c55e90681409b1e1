"""evaluation: goldensets, runs and per-query results

Revision ID: 0005
Revises: 0004
Create Date: 2026-11-30
"""
from alembic import op
import sqlalchemy as sa

revision = '0005'
down_revision = '0004'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        'eval_goldensets',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('name', sa.String(length=200), nullable=False),
        sa.Column('description', sa.Text(), nullable=False),
        sa.Column('doc_key', sa.String(length=20), nullable=False),
        sa.Column('collection', sa.String(length=200), nullable=True),
        sa.Column('source', sa.String(length=1000), nullable=False),
        sa.Column('queries', sa.JSON(), nullable=False),
        sa.Column('sha256', sa.String(length=64), nullable=False),
        sa.Column('edited_at', sa.DateTime(timezone=True), nullable=True),
        sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
        sa.Column('updated_at', sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint('id'),
        sa.UniqueConstraint('name'),
    )
    op.create_table(
        'eval_runs',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('batch', sa.String(length=36), nullable=False),
        sa.Column('goldenset_id', sa.Integer(), nullable=True),
        sa.Column('goldenset_name', sa.String(length=200), nullable=False),
        sa.Column('goldenset_sha', sa.String(length=64), nullable=False),
        sa.Column('config_name', sa.String(length=100), nullable=False),
        sa.Column('params', sa.JSON(), nullable=False),
        sa.Column('index_meta', sa.JSON(), nullable=False),
        sa.Column('metrics', sa.JSON(), nullable=False),
        sa.Column('n_queries', sa.Integer(), nullable=False),
        sa.Column('warnings', sa.JSON(), nullable=False),
        sa.Column('duration_s', sa.Float(), nullable=False),
        sa.Column('label', sa.String(length=200), nullable=False),
        sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(['goldenset_id'], ['eval_goldensets.id'], ondelete='SET NULL'),
        sa.PrimaryKeyConstraint('id'),
    )
    with op.batch_alter_table('eval_runs', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_eval_runs_batch'), ['batch'], unique=False)
        batch_op.create_index(batch_op.f('ix_eval_runs_created_at'), ['created_at'], unique=False)
        batch_op.create_index('ix_eval_runs_goldenset', ['goldenset_name', 'created_at'],
                              unique=False)
    op.create_table(
        'eval_results',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('run_id', sa.Integer(), nullable=False),
        sa.Column('query_id', sa.String(length=200), nullable=False),
        sa.Column('question', sa.Text(), nullable=False),
        sa.Column('metrics', sa.JSON(), nullable=False),
        sa.Column('ranking', sa.JSON(), nullable=False),
        sa.Column('relevant', sa.JSON(), nullable=False),
        sa.Column('trace_id', sa.String(length=36), nullable=True),
        sa.Column('latency_ms', sa.Float(), nullable=False),
        sa.ForeignKeyConstraint(['run_id'], ['eval_runs.id'], ondelete='CASCADE'),
        sa.PrimaryKeyConstraint('id'),
    )
    with op.batch_alter_table('eval_results', schema=None) as batch_op:
        batch_op.create_index('ix_eval_results_run', ['run_id', 'query_id'], unique=False)


def downgrade() -> None:
    with op.batch_alter_table('eval_results', schema=None) as batch_op:
        batch_op.drop_index('ix_eval_results_run')
    op.drop_table('eval_results')
    with op.batch_alter_table('eval_runs', schema=None) as batch_op:
        batch_op.drop_index('ix_eval_runs_goldenset')
        batch_op.drop_index(batch_op.f('ix_eval_runs_created_at'))
        batch_op.drop_index(batch_op.f('ix_eval_runs_batch'))
    op.drop_table('eval_runs')
    op.drop_table('eval_goldensets')
