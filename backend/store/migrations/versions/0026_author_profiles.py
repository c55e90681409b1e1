"""author_profiles; chat_sessions.profile_id, chatbots.profile_id (issue 26, seed 000)

Named style rules (tone, formality, form of address, longest sentence, forbidden words,
output format) a chat session or a chatbot writes by. The two references are added in place
(ALTER TABLE ADD COLUMN with ON DELETE SET NULL; a batch rebuild of `chat_sessions` on SQLite
would cascade-delete the messages).

Revision ID: 0026
Revises: 0024 (the coordinator re-chains)
Create Date: 2026-12-02
"""
import sqlalchemy as sa
from alembic import op

revision = '0026'
down_revision = '0025'
branch_labels = None
depends_on = None

_REFS = ('chat_sessions', 'chatbots')


def upgrade() -> None:
    op.create_table(
        'author_profiles',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('name', sa.String(length=100), nullable=False),
        sa.Column('description', sa.Text(), nullable=False),
        sa.Column('tone', sa.String(length=200), nullable=False),
        sa.Column('formality', sa.String(length=20), nullable=False),
        sa.Column('address', sa.String(length=20), nullable=False),
        sa.Column('max_sentence_words', sa.Integer(), nullable=True),
        sa.Column('forbidden_words', sa.JSON(), nullable=False),
        sa.Column('output_format', sa.String(length=20), nullable=False),
        sa.Column('extra_rules', sa.Text(), nullable=False),
        sa.Column('created_by', sa.String(length=100), nullable=False),
        sa.Column('updated_by', sa.String(length=100), nullable=False),
        sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
        sa.Column('updated_at', sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint('id'),
        sa.UniqueConstraint('name'),
    )
    for table in _REFS:
        if op.get_bind().dialect.name == 'sqlite':
            op.execute(f"ALTER TABLE {table} ADD COLUMN profile_id INTEGER "
                       "REFERENCES author_profiles(id) ON DELETE SET NULL")
        else:
            op.add_column(table, sa.Column('profile_id', sa.Integer(), nullable=True))
            op.create_foreign_key(f'fk_{table}_profile_id', table, 'author_profiles',
                                  ['profile_id'], ['id'], ondelete='SET NULL')
        op.create_index(f'ix_{table}_profile_id', table, ['profile_id'])


def downgrade() -> None:
    for table in _REFS:
        op.drop_index(f'ix_{table}_profile_id', table_name=table)
        with op.batch_alter_table(table, schema=None) as batch_op:
            if op.get_bind().dialect.name != 'sqlite':
                batch_op.drop_constraint(f'fk_{table}_profile_id', type_='foreignkey')
            batch_op.drop_column('profile_id')
    op.drop_table('author_profiles')
