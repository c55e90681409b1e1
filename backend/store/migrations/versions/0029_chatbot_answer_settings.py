"""chatbots.min_relevance, show_sources, question_urls; chat_messages.bot_fallback;
crawl_sources.render_js (issue 26.8 and 26.4, seed 003)

Per-bot answer settings of the admin test page: `min_relevance` (0–1; the bot declines
with its fallback message when no source's similarity to the question reaches it; 0 = off),
`show_sources` (off: replies omit their sources on the page and in JSON) and
`question_urls` (a URL in a visitor's question is fetched; off by default for bots).
`chat_messages.bot_fallback`: the reply was the bot's fallback message (no evidence, or
below the minimum relevance) — the admin test page's fallback rate; existing bot answers
are back-filled from their stored citations (abstained, or no source). `crawl_sources.render_js`: the source's pages are rendered with their JavaScript in
Chromium before extraction (backend/crawl/render.py; off by default). Added in place (ALTER TABLE ADD COLUMN; a batch rebuild of `chatbots` on SQLite would
cascade-delete its conversations).

Revision ID: 0029
Revises: 0024 (the head on main when it was written; the coordinator re-chains)
Create Date: 2026-12-02
"""
import sqlalchemy as sa
from alembic import op

revision = '0029'
down_revision = '0026'
branch_labels = None
depends_on = None


def upgrade() -> None:
    if op.get_bind().dialect.name == 'sqlite':
        op.execute("ALTER TABLE chatbots ADD COLUMN min_relevance FLOAT NOT NULL DEFAULT 0")
        op.execute("ALTER TABLE chatbots ADD COLUMN show_sources BOOLEAN NOT NULL DEFAULT 1")
        op.execute("ALTER TABLE chatbots ADD COLUMN question_urls BOOLEAN NOT NULL DEFAULT 0")
        op.execute("ALTER TABLE chat_messages ADD COLUMN bot_fallback BOOLEAN NOT NULL "
                   "DEFAULT 0")
        op.execute("ALTER TABLE crawl_sources ADD COLUMN render_js BOOLEAN NOT NULL DEFAULT 0")
    else:
        op.add_column('chatbots', sa.Column('min_relevance', sa.Float(), nullable=False,
                                            server_default='0'))
        op.add_column('chatbots', sa.Column('show_sources', sa.Boolean(), nullable=False,
                                            server_default=sa.true()))
        op.add_column('chatbots', sa.Column('question_urls', sa.Boolean(), nullable=False,
                                            server_default=sa.false()))
        op.add_column('chat_messages', sa.Column('bot_fallback', sa.Boolean(),
                                                 nullable=False, server_default=sa.false()))
        op.add_column('crawl_sources', sa.Column('render_js', sa.Boolean(), nullable=False,
                                                 server_default=sa.false()))
    _backfill()


def _backfill() -> None:
    """Bot answers stored before this migration: fallback = abstained or no source."""
    bind = op.get_bind()
    msgs = sa.table('chat_messages', sa.column('id', sa.Integer), sa.column('session_id'),
                    sa.column('role'), sa.column('sources', sa.JSON),
                    sa.column('citations', sa.JSON), sa.column('bot_fallback', sa.Boolean))
    sess = sa.table('chat_sessions', sa.column('id'), sa.column('chatbot_id'))
    bots = sa.select(sess.c.id).where(sess.c.chatbot_id.is_not(None))
    rows = bind.execute(sa.select(msgs.c.id, msgs.c.sources, msgs.c.citations).where(
        msgs.c.role == 'assistant', msgs.c.session_id.in_(bots))).all()
    ids = [r.id for r in rows if not r.sources or (r.citations or {}).get('abstained')]
    for start in range(0, len(ids), 500):
        bind.execute(msgs.update().where(msgs.c.id.in_(ids[start:start + 500]))
                     .values(bot_fallback=True))


def downgrade() -> None:
    with op.batch_alter_table('crawl_sources', schema=None) as batch_op:
        batch_op.drop_column('render_js')
    with op.batch_alter_table('chat_messages', schema=None) as batch_op:
        batch_op.drop_column('bot_fallback')
    with op.batch_alter_table('chatbots', schema=None) as batch_op:
        batch_op.drop_column('question_urls')
        batch_op.drop_column('show_sources')
        batch_op.drop_column('min_relevance')
