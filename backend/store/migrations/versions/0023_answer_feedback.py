"""answer_feedback: thumbs up/down with an optional note on a chat answer (issue 23)

One row per answer (`chat_messages.id`) and rater; deleting the message deletes it. A new
table, so the chat tables are not rebuilt.

Revision ID: 0023
Revises: 0021
Create Date: 2026-12-02
"""
import sqlalchemy as sa
from alembic import op

revision = '0023'
down_revision = '0021'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        'answer_feedback',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('message_id', sa.Integer(), nullable=False),
        sa.Column('user', sa.String(length=100), nullable=False),
        sa.Column('rating', sa.Integer(), nullable=False),
        sa.Column('note', sa.Text(), nullable=False),
        sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
        sa.Column('updated_at', sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(['message_id'], ['chat_messages.id'], ondelete='CASCADE'),
        sa.PrimaryKeyConstraint('id'),
        sa.UniqueConstraint('message_id', 'user', name='uq_answer_feedback'),
    )
    with op.batch_alter_table('answer_feedback', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_answer_feedback_message_id'), ['message_id'])
        batch_op.create_index(batch_op.f('ix_answer_feedback_user'), ['user'])
        batch_op.create_index(batch_op.f('ix_answer_feedback_created_at'), ['created_at'])


def downgrade() -> None:
    op.drop_table('answer_feedback')
