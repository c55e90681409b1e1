"""critics, critique_runs, content_critiques, critique_revisions: critics and critique rounds
(issue 26.1, seed 001)

The critics configured in the database, seeded with the three LLM critics (fact checker,
stylist, structure analyst) and the deterministic format checker; one run per critique of a
text, its critiques per round and critic (the seed's content_critiques), its revisions.
New tables only.

Revision ID: 0025
Revises: 0024
Create Date: 2026-12-02
"""
import sqlalchemy as sa
from alembic import op

revision = '0025'
down_revision = '0024'
branch_labels = None
depends_on = None


def _critics() -> None:
    critics = op.create_table(
        'critics',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('name', sa.String(length=100), nullable=False),
        sa.Column('type', sa.String(length=20), nullable=False),
        sa.Column('prompt', sa.Text(), nullable=False),
        sa.Column('rubric', sa.Text(), nullable=False),
        sa.Column('threshold', sa.Float(), nullable=False),
        sa.Column('active', sa.Boolean(), nullable=False),
        sa.Column('position', sa.Integer(), nullable=False),
        sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
        sa.Column('updated_at', sa.DateTime(timezone=True), nullable=False),
        sa.Column('updated_by', sa.String(length=100), nullable=False),
        sa.PrimaryKeyConstraint('id'),
        sa.UniqueConstraint('name', name='uq_critics_name'),
    )
    # the seeded critics as they were when this migration was written (their texts live in
    # backend/chat/critique/defaults.py; later edits there do not change stored critics)
    from datetime import datetime, timezone

    from backend.chat.critique.defaults import DEFAULT_CRITICS

    now = datetime.now(timezone.utc)
    op.bulk_insert(critics, [{**c, "created_at": now, "updated_at": now, "updated_by": "seed"}
                             for c in DEFAULT_CRITICS])


def _runs() -> None:
    op.create_table(
        'critique_runs',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('message_id', sa.Integer(), nullable=True),
        sa.Column('text_hash', sa.String(length=64), nullable=False),
        sa.Column('kind', sa.String(length=20), nullable=False),
        sa.Column('original_text', sa.Text(), nullable=False),
        sa.Column('final_text', sa.Text(), nullable=False),
        sa.Column('sources', sa.JSON(), nullable=False),
        sa.Column('status', sa.String(length=20), nullable=False),
        sa.Column('rounds', sa.Integer(), nullable=False),
        sa.Column('max_rounds', sa.Integer(), nullable=False),
        sa.Column('provider', sa.String(length=30), nullable=False),
        sa.Column('model', sa.String(length=200), nullable=False),
        sa.Column('user', sa.String(length=100), nullable=False),
        sa.Column('error', sa.Text(), nullable=False),
        sa.Column('duration_ms', sa.Float(), nullable=True),
        sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(['message_id'], ['chat_messages.id'], ondelete='CASCADE'),
        sa.PrimaryKeyConstraint('id'),
    )
    with op.batch_alter_table('critique_runs', schema=None) as batch_op:
        for col in ('message_id', 'text_hash', 'status', 'user', 'created_at'):
            batch_op.create_index(batch_op.f(f'ix_critique_runs_{col}'), [col])


def _critiques() -> None:
    op.create_table(
        'content_critiques',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('run_id', sa.Integer(), nullable=False),
        sa.Column('round', sa.Integer(), nullable=False),
        sa.Column('critic_id', sa.Integer(), nullable=True),
        sa.Column('critic_name', sa.String(length=100), nullable=False),
        sa.Column('critic_type', sa.String(length=20), nullable=False),
        sa.Column('rating', sa.Float(), nullable=True),
        sa.Column('threshold', sa.Float(), nullable=False),
        sa.Column('passed', sa.Boolean(), nullable=False),
        sa.Column('issues', sa.JSON(), nullable=False),
        sa.Column('suggestions', sa.JSON(), nullable=False),
        sa.Column('summary', sa.Text(), nullable=False),
        sa.Column('deterministic', sa.Boolean(), nullable=False),
        sa.Column('raw', sa.Text(), nullable=False),
        sa.Column('error', sa.Text(), nullable=False),
        sa.Column('duration_ms', sa.Float(), nullable=True),
        sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(['run_id'], ['critique_runs.id'], ondelete='CASCADE'),
        sa.ForeignKeyConstraint(['critic_id'], ['critics.id'], ondelete='SET NULL'),
        sa.PrimaryKeyConstraint('id'),
    )
    with op.batch_alter_table('content_critiques', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_content_critiques_run_id'), ['run_id'])
    op.create_table(
        'critique_revisions',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('run_id', sa.Integer(), nullable=False),
        sa.Column('round', sa.Integer(), nullable=False),
        sa.Column('text', sa.Text(), nullable=False),
        sa.Column('duration_ms', sa.Float(), nullable=True),
        sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(['run_id'], ['critique_runs.id'], ondelete='CASCADE'),
        sa.PrimaryKeyConstraint('id'),
    )
    with op.batch_alter_table('critique_revisions', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_critique_revisions_run_id'), ['run_id'])


def upgrade() -> None:
    _critics()
    _runs()
    _critiques()


def downgrade() -> None:
    op.drop_table('critique_revisions')
    op.drop_table('content_critiques')
    op.drop_table('critique_runs')
    op.drop_table('critics')
