"""analysis artifacts: cached extractor results and summaries per document version

Revision ID: 0015
Revises: 0014
Create Date: 2026-12-01

Sits on 0014 (main when issue 12 was merged); a branch adding a migration at the same time
sets its down_revision so that the chain stays linear.
"""
from alembic import op
import sqlalchemy as sa

revision = '0015'
down_revision = '0014'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        'analysis_artifacts',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('version_id', sa.Integer(), nullable=False),
        sa.Column('kind', sa.String(length=80), nullable=False),
        sa.Column('variant', sa.String(length=64), nullable=False),
        sa.Column('producer_version', sa.String(length=40), nullable=False),
        sa.Column('source_sig', sa.String(length=100), nullable=False),
        sa.Column('payload', sa.JSON(), nullable=False),
        sa.Column('item_count', sa.Integer(), nullable=False),
        sa.Column('duration_ms', sa.Float(), nullable=False),
        sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(['version_id'], ['document_versions.id'], ondelete='CASCADE'),
        sa.PrimaryKeyConstraint('id'),
        sa.UniqueConstraint('version_id', 'kind', 'variant', name='uq_analysis_artifacts_key'),
    )
    with op.batch_alter_table('analysis_artifacts', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_analysis_artifacts_version_id'), ['version_id'],
                              unique=False)


def downgrade() -> None:
    with op.batch_alter_table('analysis_artifacts', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_analysis_artifacts_version_id'))
    op.drop_table('analysis_artifacts')
