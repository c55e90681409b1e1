"""system_prompt_versions, runtime_settings, config_audit: admin-managed configuration
(issue 26, item 7)

Versioned system prompts (one active per scope), run-time overrides of the safe settings
and the audit log of changes to either. New tables only.

Revision ID: 0028
Revises: 0024 (the head on main when it was written; the coordinator re-chains)
Create Date: 2026-12-02
"""
import sqlalchemy as sa
from alembic import op

revision = '0028'
down_revision = '0029'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        'system_prompt_versions',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('scope', sa.String(length=20), nullable=False),
        sa.Column('version', sa.Integer(), nullable=False),
        sa.Column('text', sa.Text(), nullable=False),
        sa.Column('note', sa.Text(), nullable=False),
        sa.Column('created_by', sa.String(length=100), nullable=False),
        sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
        sa.Column('active', sa.Boolean(), nullable=False),
        sa.PrimaryKeyConstraint('id'),
        sa.UniqueConstraint('scope', 'version', name='uq_system_prompt_version'),
    )
    with op.batch_alter_table('system_prompt_versions', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_system_prompt_versions_scope'), ['scope'])
        batch_op.create_index(batch_op.f('ix_system_prompt_versions_active'), ['active'])
    op.create_table(
        'runtime_settings',
        sa.Column('name', sa.String(length=100), nullable=False),
        sa.Column('value', sa.Text(), nullable=False),
        sa.Column('updated_by', sa.String(length=100), nullable=False),
        sa.Column('updated_at', sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint('name'),
    )
    op.create_table(
        'config_audit',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('kind', sa.String(length=20), nullable=False),
        sa.Column('name', sa.String(length=100), nullable=False),
        sa.Column('action', sa.String(length=20), nullable=False),
        sa.Column('old', sa.Text(), nullable=True),
        sa.Column('new', sa.Text(), nullable=True),
        sa.Column('actor', sa.String(length=100), nullable=False),
        sa.Column('at', sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint('id'),
    )
    with op.batch_alter_table('config_audit', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_config_audit_kind'), ['kind'])
        batch_op.create_index(batch_op.f('ix_config_audit_name'), ['name'])
        batch_op.create_index(batch_op.f('ix_config_audit_actor'), ['actor'])
        batch_op.create_index(batch_op.f('ix_config_audit_at'), ['at'])


def downgrade() -> None:
    op.drop_table('config_audit')
    op.drop_table('runtime_settings')
    op.drop_table('system_prompt_versions')
