"""chat sessions and messages

Revision ID: 0004
Revises: 0003
Create Date: 2026-11-29
"""
from alembic import op
import sqlalchemy as sa

revision = '0004'
down_revision = '0003'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        'chat_sessions',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('uuid', sa.String(length=36), nullable=False),
        sa.Column('user', sa.String(length=100), nullable=True),
        sa.Column('title', sa.String(length=255), nullable=False),
        sa.Column('provider', sa.String(length=30), nullable=False),
        sa.Column('model', sa.String(length=200), nullable=False),
        sa.Column('collections', sa.JSON(), nullable=False),
        sa.Column('context_limit', sa.Integer(), nullable=False),
        sa.Column('temperature', sa.Float(), nullable=False),
        sa.Column('max_tokens', sa.Integer(), nullable=False),
        sa.Column('policy', sa.String(length=30), nullable=False),
        sa.Column('system_prompt', sa.Text(), nullable=False),
        sa.Column('answer_profile', sa.String(length=30), nullable=False),
        sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
        sa.Column('last_activity', sa.DateTime(timezone=True), nullable=False),
        sa.Column('updated_at', sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint('id'),
        sa.UniqueConstraint('uuid'),
    )
    with op.batch_alter_table('chat_sessions', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_chat_sessions_last_activity'), ['last_activity'],
                              unique=False)
        batch_op.create_index(batch_op.f('ix_chat_sessions_user'), ['user'], unique=False)
    op.create_table(
        'chat_messages',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('session_id', sa.Integer(), nullable=False),
        sa.Column('role', sa.String(length=10), nullable=False),
        sa.Column('content', sa.Text(), nullable=False),
        sa.Column('sources', sa.JSON(), nullable=False),
        sa.Column('citations', sa.JSON(), nullable=False),
        sa.Column('format_check', sa.JSON(), nullable=False),
        sa.Column('collections', sa.JSON(), nullable=False),
        sa.Column('provider', sa.String(length=30), nullable=False),
        sa.Column('model', sa.String(length=200), nullable=False),
        sa.Column('tokens_input', sa.Integer(), nullable=True),
        sa.Column('tokens_output', sa.Integer(), nullable=True),
        sa.Column('tokens_counted_locally', sa.Boolean(), nullable=False),
        sa.Column('cost_usd', sa.Float(), nullable=True),
        sa.Column('cost_label', sa.String(length=10), nullable=False),
        sa.Column('latency_ms', sa.Float(), nullable=True),
        sa.Column('first_token_ms', sa.Float(), nullable=True),
        sa.Column('retrieval_ms', sa.Float(), nullable=True),
        sa.Column('trace_id', sa.String(length=36), nullable=True),
        sa.Column('fallback', sa.Boolean(), nullable=False),
        sa.Column('notice', sa.Text(), nullable=True),
        sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(['session_id'], ['chat_sessions.id'], ondelete='CASCADE'),
        sa.PrimaryKeyConstraint('id'),
    )
    with op.batch_alter_table('chat_messages', schema=None) as batch_op:
        batch_op.create_index('ix_chat_messages_session', ['session_id', 'id'], unique=False)
        batch_op.create_index(batch_op.f('ix_chat_messages_created_at'), ['created_at'],
                              unique=False)


def downgrade() -> None:
    with op.batch_alter_table('chat_messages', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_chat_messages_created_at'))
        batch_op.drop_index('ix_chat_messages_session')
    op.drop_table('chat_messages')
    with op.batch_alter_table('chat_sessions', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_chat_sessions_user'))
        batch_op.drop_index(batch_op.f('ix_chat_sessions_last_activity'))
    op.drop_table('chat_sessions')
