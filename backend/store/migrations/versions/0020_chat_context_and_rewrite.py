"""chat_sessions.context_mode and chat_messages.rewrite (issue 22, follow-ups)

`context_mode`: how much of the conversation a session's answers see — `regular` (the last
25 lines) or `full` (500 lines, on request; seed 004). `rewrite`: the retrieval query a
follow-up was rewritten to, why, and the document in focus (backend/chat/followup.py), so
the next follow-up continues from it and the API shows it. Added in place (ALTER TABLE ADD
COLUMN; a batch rebuild of `chat_sessions` on SQLite would cascade-delete the messages).

Revision ID: 0020
Revises: 0019
Create Date: 2026-12-01
"""
import sqlalchemy as sa
from alembic import op

revision = '0020'
down_revision = '0019'
branch_labels = None
depends_on = None


def upgrade() -> None:
    if op.get_bind().dialect.name == 'sqlite':
        op.execute("ALTER TABLE chat_sessions ADD COLUMN context_mode VARCHAR(10) "
                   "NOT NULL DEFAULT 'regular'")
        op.execute('ALTER TABLE chat_messages ADD COLUMN rewrite JSON')
    else:
        op.add_column('chat_sessions', sa.Column('context_mode', sa.String(length=10),
                                                 nullable=False, server_default='regular'))
        op.add_column('chat_messages', sa.Column('rewrite', sa.JSON(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table('chat_messages', schema=None) as batch_op:
        batch_op.drop_column('rewrite')
    with op.batch_alter_table('chat_sessions', schema=None) as batch_op:
        batch_op.drop_column('context_mode')
