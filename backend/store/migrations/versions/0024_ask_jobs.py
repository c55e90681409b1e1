"""ask_jobs, ask_job_events: replayable ask jobs (issue 26, seed 004)

A job row per `POST /api/ask-jobs` and one row per event it streamed, so any API worker can
replay them after a reconnect. New tables only.

Revision ID: 0024
Revises: 0023 (the head on main when it was written; the coordinator re-chains)
Create Date: 2026-12-02
"""
import sqlalchemy as sa
from alembic import op

revision = '0024'
down_revision = '0023'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        'ask_jobs',
        sa.Column('id', sa.String(length=36), nullable=False),
        sa.Column('owner', sa.String(length=100), nullable=False),
        sa.Column('question', sa.Text(), nullable=False),
        sa.Column('status', sa.String(length=20), nullable=False),
        sa.Column('worker', sa.String(length=200), nullable=False),
        sa.Column('error', sa.Text(), nullable=False),
        sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
        sa.Column('heartbeat_at', sa.DateTime(timezone=True), nullable=False),
        sa.Column('finished_at', sa.DateTime(timezone=True), nullable=True),
        sa.PrimaryKeyConstraint('id'),
    )
    with op.batch_alter_table('ask_jobs', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_ask_jobs_owner'), ['owner'])
        batch_op.create_index(batch_op.f('ix_ask_jobs_status'), ['status'])
        batch_op.create_index(batch_op.f('ix_ask_jobs_finished_at'), ['finished_at'])
    op.create_table(
        'ask_job_events',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('job_id', sa.String(length=36), nullable=False),
        sa.Column('seq', sa.Integer(), nullable=False),
        sa.Column('event', sa.String(length=20), nullable=False),
        sa.Column('data', sa.Text(), nullable=False),
        sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(['job_id'], ['ask_jobs.id'], ondelete='CASCADE'),
        sa.PrimaryKeyConstraint('id'),
        sa.UniqueConstraint('job_id', 'seq', name='uq_ask_job_event_seq'),
    )
    with op.batch_alter_table('ask_job_events', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_ask_job_events_job_id'), ['job_id'])


def downgrade() -> None:
    op.drop_table('ask_job_events')
    op.drop_table('ask_jobs')
