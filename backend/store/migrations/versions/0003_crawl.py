"""crawl sources, runs, pages, events, scheduler lock and APScheduler job store

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-30
"""
from alembic import op
import sqlalchemy as sa

revision = '0003'
down_revision = '0002'
branch_labels = None
depends_on = None


def _stamps() -> list[sa.Column]:
    return [sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
            sa.Column('updated_at', sa.DateTime(timezone=True), nullable=False)]


def upgrade() -> None:
    op.create_table(
        'crawl_sources',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('name', sa.String(length=100), nullable=False),
        sa.Column('kind', sa.String(length=10), nullable=False),
        sa.Column('start_url', sa.String(length=2000), nullable=False),
        sa.Column('collection', sa.String(length=255), nullable=False),
        sa.Column('max_pages', sa.Integer(), nullable=False),
        sa.Column('max_depth', sa.Integer(), nullable=False),
        sa.Column('delay_s', sa.Float(), nullable=False),
        sa.Column('concurrency', sa.Integer(), nullable=False),
        sa.Column('respect_robots', sa.Boolean(), nullable=False),
        sa.Column('use_sitemap', sa.Boolean(), nullable=False),
        sa.Column('include_subdomains', sa.Boolean(), nullable=False),
        sa.Column('schedule_kind', sa.String(length=10), nullable=False),
        sa.Column('schedule_value', sa.String(length=100), nullable=False),
        sa.Column('enabled', sa.Boolean(), nullable=False),
        *_stamps(),
        sa.PrimaryKeyConstraint('id'),
        sa.UniqueConstraint('name'),
    )
    op.create_table(
        'crawl_runs',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('source_id', sa.Integer(), nullable=False),
        sa.Column('job_id', sa.Integer(), nullable=True),
        sa.Column('trigger', sa.String(length=20), nullable=False),
        sa.Column('status', sa.String(length=20), nullable=False),
        sa.Column('current_url', sa.String(length=2000), nullable=False),
        sa.Column('pages_total', sa.Integer(), nullable=False),
        sa.Column('counters', sa.JSON(), nullable=False),
        sa.Column('frontier', sa.JSON(), nullable=False),
        sa.Column('seen', sa.JSON(), nullable=False),
        sa.Column('error', sa.Text(), nullable=True),
        sa.Column('started_at', sa.DateTime(timezone=True), nullable=False),
        sa.Column('finished_at', sa.DateTime(timezone=True), nullable=True),
        sa.Column('updated_at', sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(['source_id'], ['crawl_sources.id'], ondelete='CASCADE'),
        sa.ForeignKeyConstraint(['job_id'], ['jobs.id'], ondelete='SET NULL'),
        sa.PrimaryKeyConstraint('id'),
    )
    with op.batch_alter_table('crawl_runs', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_crawl_runs_source_id'), ['source_id'], unique=False)
    op.create_table(
        'crawl_pages',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('source_id', sa.Integer(), nullable=False),
        sa.Column('url', sa.String(length=2000), nullable=False),
        sa.Column('final_url', sa.String(length=2000), nullable=False),
        sa.Column('document_id', sa.Integer(), nullable=True),
        sa.Column('state', sa.String(length=20), nullable=False),
        sa.Column('content_sha', sa.String(length=64), nullable=False),
        sa.Column('etag', sa.String(length=500), nullable=False),
        sa.Column('last_modified', sa.String(length=100), nullable=False),
        sa.Column('sitemap_lastmod', sa.DateTime(timezone=True), nullable=True),
        sa.Column('http_status', sa.Integer(), nullable=True),
        sa.Column('depth', sa.Integer(), nullable=False),
        sa.Column('links', sa.JSON(), nullable=False),
        sa.Column('last_run_id', sa.Integer(), nullable=True),
        sa.Column('first_seen_at', sa.DateTime(timezone=True), nullable=False),
        sa.Column('last_seen_at', sa.DateTime(timezone=True), nullable=False),
        sa.Column('changed_at', sa.DateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(['source_id'], ['crawl_sources.id'], ondelete='CASCADE'),
        sa.ForeignKeyConstraint(['document_id'], ['documents.id'], ondelete='SET NULL'),
        sa.PrimaryKeyConstraint('id'),
        sa.UniqueConstraint('source_id', 'url'),
    )
    op.create_table(
        'crawl_events',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('run_id', sa.Integer(), nullable=False),
        sa.Column('url', sa.String(length=2000), nullable=False),
        sa.Column('outcome', sa.String(length=20), nullable=False),
        sa.Column('reason', sa.Text(), nullable=False),
        sa.Column('http_status', sa.Integer(), nullable=True),
        sa.Column('document_id', sa.Integer(), nullable=True),
        sa.Column('size_bytes', sa.Integer(), nullable=False),
        sa.Column('at', sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(['run_id'], ['crawl_runs.id'], ondelete='CASCADE'),
        sa.PrimaryKeyConstraint('id'),
    )
    with op.batch_alter_table('crawl_events', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_crawl_events_run_id'), ['run_id'], unique=False)
    op.create_table(
        'scheduler_lock',
        sa.Column('name', sa.String(length=50), nullable=False),
        sa.Column('owner', sa.String(length=200), nullable=False),
        sa.Column('acquired_at', sa.DateTime(timezone=True), nullable=False),
        sa.Column('expires_at', sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint('name'),
    )
    op.create_table(
        'apscheduler_jobs',
        sa.Column('id', sa.Unicode(length=191), nullable=False),
        sa.Column('next_run_time', sa.Float(precision=25), nullable=True),
        sa.Column('job_state', sa.LargeBinary(), nullable=False),
        sa.PrimaryKeyConstraint('id'),
    )
    with op.batch_alter_table('apscheduler_jobs', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_apscheduler_jobs_next_run_time'), ['next_run_time'],
                              unique=False)


def downgrade() -> None:
    with op.batch_alter_table('apscheduler_jobs', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_apscheduler_jobs_next_run_time'))
    op.drop_table('apscheduler_jobs')
    op.drop_table('scheduler_lock')
    with op.batch_alter_table('crawl_events', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_crawl_events_run_id'))
    op.drop_table('crawl_events')
    op.drop_table('crawl_pages')
    with op.batch_alter_table('crawl_runs', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_crawl_runs_source_id'))
    op.drop_table('crawl_runs')
    op.drop_table('crawl_sources')
