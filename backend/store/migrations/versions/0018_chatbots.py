"""chatbots: configuration, collection references, version history; chat sessions of a bot

Revision ID: 0018
Revises: 0017
Create Date: 2026-12-01
"""
import sqlalchemy as sa
from alembic import op

revision = '0018'
down_revision = '0017'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        'chatbots',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('name', sa.String(length=200), nullable=False),
        sa.Column('slug', sa.String(length=100), nullable=False),
        sa.Column('description', sa.Text(), nullable=False),
        sa.Column('system_prompt', sa.Text(), nullable=False),
        sa.Column('welcome_message', sa.Text(), nullable=False),
        sa.Column('fallback_message', sa.Text(), nullable=False),
        sa.Column('provider', sa.String(length=30), nullable=False),
        sa.Column('model', sa.String(length=200), nullable=False),
        sa.Column('temperature', sa.Float(), nullable=False),
        sa.Column('max_tokens', sa.Integer(), nullable=False),
        sa.Column('context_limit', sa.Integer(), nullable=False),
        sa.Column('policy', sa.String(length=30), nullable=False),
        sa.Column('status', sa.String(length=20), nullable=False),
        sa.Column('source_url', sa.String(length=2000), nullable=False),
        sa.Column('crawl_source_id', sa.Integer(), nullable=True),
        sa.Column('crawl_run_id', sa.Integer(), nullable=True),
        sa.Column('build_started_at', sa.DateTime(timezone=True), nullable=True),
        sa.Column('build_started_pages', sa.Integer(), nullable=False),
        sa.Column('config_version', sa.Integer(), nullable=False),
        sa.Column('created_by', sa.String(length=100), nullable=False),
        sa.Column('updated_by', sa.String(length=100), nullable=False),
        sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
        sa.Column('updated_at', sa.DateTime(timezone=True), nullable=False),
        sa.Column('published_at', sa.DateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(['crawl_run_id'], ['crawl_runs.id'], ondelete='SET NULL'),
        sa.ForeignKeyConstraint(['crawl_source_id'], ['crawl_sources.id'], ondelete='SET NULL'),
        sa.PrimaryKeyConstraint('id'),
        sa.UniqueConstraint('name'),
        sa.UniqueConstraint('slug'),
    )
    op.create_table(
        'chatbot_collections',
        sa.Column('chatbot_id', sa.Integer(), nullable=False),
        sa.Column('collection_id', sa.Integer(), nullable=False),
        sa.Column('position', sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(['chatbot_id'], ['chatbots.id'], ondelete='CASCADE'),
        sa.ForeignKeyConstraint(['collection_id'], ['collections.id'], ondelete='CASCADE'),
        sa.PrimaryKeyConstraint('chatbot_id', 'collection_id'),
    )
    with op.batch_alter_table('chatbot_collections', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_chatbot_collections_collection_id'),
                              ['collection_id'], unique=False)
    op.create_table(
        'chatbot_versions',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('chatbot_id', sa.Integer(), nullable=False),
        sa.Column('version', sa.Integer(), nullable=False),
        sa.Column('config', sa.JSON(), nullable=False),
        sa.Column('change', sa.String(length=500), nullable=False),
        sa.Column('changed_by', sa.String(length=100), nullable=False),
        sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(['chatbot_id'], ['chatbots.id'], ondelete='CASCADE'),
        sa.PrimaryKeyConstraint('id'),
        sa.UniqueConstraint('chatbot_id', 'version', name='uq_chatbot_versions'),
    )
    with op.batch_alter_table('chatbot_versions', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_chatbot_versions_chatbot_id'), ['chatbot_id'],
                              unique=False)
    if op.get_bind().dialect.name == 'sqlite':
        # No batch mode here: it rebuilds `chat_sessions`, and dropping the old table with
        # foreign keys on (as ragscope's engine sets them) would cascade-delete every chat
        # message (as 0016 found for collection_documents). SQLite adds a nullable
        # REFERENCES column in place.
        op.execute('ALTER TABLE chat_sessions ADD COLUMN chatbot_id INTEGER '
                   'REFERENCES chatbots (id) ON DELETE CASCADE')
        op.create_index('ix_chat_sessions_chatbot_id', 'chat_sessions', ['chatbot_id'],
                        unique=False)
    else:
        with op.batch_alter_table('chat_sessions', schema=None) as batch_op:
            batch_op.add_column(sa.Column('chatbot_id', sa.Integer(), nullable=True))
            batch_op.create_index(batch_op.f('ix_chat_sessions_chatbot_id'), ['chatbot_id'],
                                  unique=False)
            batch_op.create_foreign_key('fk_chat_sessions_chatbot_id', 'chatbots',
                                        ['chatbot_id'], ['id'], ondelete='CASCADE')


def downgrade() -> None:
    with op.batch_alter_table('chat_sessions', schema=None) as batch_op:
        batch_op.drop_constraint('fk_chat_sessions_chatbot_id', type_='foreignkey')
        batch_op.drop_index(batch_op.f('ix_chat_sessions_chatbot_id'))
        batch_op.drop_column('chatbot_id')
    with op.batch_alter_table('chatbot_versions', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_chatbot_versions_chatbot_id'))
    op.drop_table('chatbot_versions')
    with op.batch_alter_table('chatbot_collections', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_chatbot_collections_collection_id'))
    op.drop_table('chatbot_collections')
    op.drop_table('chatbots')
