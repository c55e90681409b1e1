"""retrieval trace owners; which documents traces and chat answers show

Revision ID: 0007
Revises: 0006
Create Date: 2026-12-01

* `retrieval_traces.owner_kind` / `owner`: who asked ("user", name) or ("system", "cli" |
  "eval"). Existing traces get none: visible to admins only.
* `trace_documents`, `chat_message_documents`: the documents a trace's hits and an answer's
  sources come from, so a document delete finds them without reading every JSON. Filled from
  the existing rows here. References to documents deleted before this release (which the old
  delete left behind) are scrubbed now, as a delete does from this release on.
"""
from alembic import op
import sqlalchemy as sa

revision = '0007'
down_revision = '0006'
branch_labels = None
depends_on = None

BATCH = 200


def upgrade() -> None:
    with op.batch_alter_table('retrieval_traces', schema=None) as batch_op:
        batch_op.add_column(sa.Column('owner_kind', sa.String(length=20), nullable=True))
        batch_op.add_column(sa.Column('owner', sa.String(length=200), nullable=True))
        batch_op.create_index('ix_retrieval_traces_owner', ['owner_kind', 'owner', 'created_at'],
                              unique=False)
    op.create_table(
        'trace_documents',
        sa.Column('trace_id', sa.String(length=36), nullable=False),
        sa.Column('document_id', sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(['trace_id'], ['retrieval_traces.id'], ondelete='CASCADE'),
        sa.PrimaryKeyConstraint('trace_id', 'document_id'),
    )
    with op.batch_alter_table('trace_documents', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_trace_documents_document_id'), ['document_id'],
                              unique=False)
    op.create_table(
        'chat_message_documents',
        sa.Column('message_id', sa.Integer(), nullable=False),
        sa.Column('document_id', sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(['message_id'], ['chat_messages.id'], ondelete='CASCADE'),
        sa.PrimaryKeyConstraint('message_id', 'document_id'),
    )
    with op.batch_alter_table('chat_message_documents', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_chat_message_documents_document_id'),
                              ['document_id'], unique=False)
    _backfill()


def _backfill() -> None:
    """Core SQL on lightweight tables (not the ORM models, which follow later migrations);
    the scrubbing itself is the pure dict functions the delete uses."""
    from backend.store.redact import (
        scrub_result,
        scrub_sources,
        source_document_ids,
        trace_document_ids,
    )

    conn = op.get_bind()
    existing = set(conn.scalars(sa.text("SELECT id FROM documents")))
    traces = sa.table('retrieval_traces', sa.column('id', sa.String),
                      sa.column('trace', sa.JSON))
    messages = sa.table('chat_messages', sa.column('id', sa.Integer),
                        sa.column('sources', sa.JSON))
    trace_docs = sa.table('trace_documents', sa.column('trace_id', sa.String),
                          sa.column('document_id', sa.Integer))
    message_docs = sa.table('chat_message_documents', sa.column('message_id', sa.Integer),
                            sa.column('document_id', sa.Integer))
    for table, key, data, side, side_key, ids_of, scrub in (
            (traces, 'id', 'trace', trace_docs, 'trace_id', trace_document_ids, scrub_result),
            (messages, 'id', 'sources', message_docs, 'message_id', source_document_ids,
             scrub_sources)):
        last = None
        while True:
            q = sa.select(table.c[key], table.c[data]).order_by(table.c[key]).limit(BATCH)
            if last is not None:
                q = q.where(table.c[key] > last)
            rows = conn.execute(q).all()
            if not rows:
                break
            last = rows[-1][0]
            links = []
            for row_id, value in rows:
                docs = ids_of(value)
                links += [{side_key: row_id, 'document_id': d} for d in docs & existing]
                gone = docs - existing
                if gone:
                    conn.execute(table.update().where(table.c[key] == row_id)
                                 .values({data: scrub(value, gone)}))
            if links:
                conn.execute(side.insert(), links)


def downgrade() -> None:
    with op.batch_alter_table('chat_message_documents', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_chat_message_documents_document_id'))
    op.drop_table('chat_message_documents')
    with op.batch_alter_table('trace_documents', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_trace_documents_document_id'))
    op.drop_table('trace_documents')
    with op.batch_alter_table('retrieval_traces', schema=None) as batch_op:
        batch_op.drop_index('ix_retrieval_traces_owner')
        batch_op.drop_column('owner')
        batch_op.drop_column('owner_kind')
