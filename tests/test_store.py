"""The metadata store on SQLite and (when configured) PostgreSQL: schema, links, versions,
filters and pagination, and in-place migration of an existing database."""
from __future__ import annotations

import pytest
from sqlalchemy import inspect, select, text
from sqlalchemy.exc import IntegrityError

from backend.errors import NotFound
from backend.store import Store, repo
from backend.store.db import current_revision, head_revision, make_engine, upgrade
from backend.store.models import Chunk, Document, DocumentVersion, Section


def _doc(s, uri, title="T", file_type="pdf", doc_type="generic", kind="file"):
    d = Document(title=title, filename=uri.rsplit("/", 1)[-1], source_uri=uri,
                 file_type=file_type, doc_type=doc_type, source_kind=kind)
    s.add(d)
    s.flush()
    return d


def test_schema_is_at_head_and_matches_models(db_url):
    store = Store(db_url)
    assert current_revision(store.engine) == head_revision()
    names = set(inspect(store.engine).get_table_names())
    for t in ("collections", "documents", "document_versions", "collection_documents",
              "sections", "chunks", "index_meta", "jobs", "retrieval_traces"):
        assert t in names
    store.dispose()


def test_document_in_two_collections_is_one_document(db_url):
    store = Store(db_url)
    with store.session() as s:
        a = repo.get_or_create_collection(s, "alpha")
        b = repo.get_or_create_collection(s, "beta")
        d = _doc(s, "file:///x.pdf")
        assert repo.link(s, a, d.id) is True
        assert repo.link(s, b, d.id) is True
        assert repo.link(s, a, d.id) is False  # already linked
        did = d.id
    with store.session() as s:
        assert repo.document_collections(s, did) == ["alpha", "beta"]
        assert dict((c.name, n) for c, n in repo.list_collections(s)) == {"alpha": 1, "beta": 1}
        assert s.scalar(select(Document).where(Document.id == did)) is not None
    store.dispose()


def test_same_content_hash_cannot_be_two_versions(db_url):
    store = Store(db_url)
    with pytest.raises(IntegrityError):
        with store.session() as s:
            d = _doc(s, "file:///a.txt")
            s.add(DocumentVersion(document_id=d.id, number=1, sha256="ab" * 32))
            s.add(DocumentVersion(document_id=d.id, number=2, sha256="ab" * 32))
    store.dispose()


def test_deleting_a_document_removes_versions_sections_chunks(db_url):
    store = Store(db_url)
    with store.session() as s:
        d = _doc(s, "file:///a.md")
        v = DocumentVersion(document_id=d.id, number=1, sha256="cd" * 32, status="indexed",
                            is_active=True)
        s.add(v)
        s.flush()
        root = Section(version_id=v.id, ordinal=0, level=0, kind="document", title="a",
                       start=0, end=10)
        s.add(root)
        s.flush()
        s.add(Section(version_id=v.id, ordinal=1, level=1, kind="chapter", title="c",
                      start=0, end=10, parent_id=root.id))
        s.add(Chunk(id="c1", version_id=v.id, document_id=d.id, section_id=root.id, ordinal=0,
                    start=0, end=10, text="0123456789"))
        d.active_version_id = v.id
        did, vid = d.id, v.id
    with store.session() as s:
        assert repo.active_chunk_ids(s) == {"c1"}
        doc = s.get(Document, did)
        doc.active_version_id = None
        s.flush()
        repo.delete_version_content(s, vid)
        s.delete(doc)
    with store.session() as s:
        assert s.get(DocumentVersion, vid) is None
        assert s.scalar(select(Chunk).where(Chunk.id == "c1")) is None
        assert repo.sections_of(s, vid) == []
    store.dispose()


def test_list_documents_filters_and_pages(db_url):
    store = Store(db_url)
    with store.session() as s:
        col = repo.get_or_create_collection(s, "minutes")
        for i in range(25):
            d = _doc(s, f"file:///d{i}.txt", title=f"Doc {i:02d}",
                     file_type="txt" if i % 2 else "pdf",
                     doc_type="minutes" if i < 5 else "generic")
            if i < 5:
                repo.link(s, col, d.id)
    with store.session() as s:
        page, total = repo.list_documents(s, offset=0, limit=10)
        assert total == 25 and len(page) == 10
        page3, _ = repo.list_documents(s, offset=20, limit=10)
        assert len(page3) == 5
        mins, n = repo.list_documents(s, repo.DocumentFilter(collections=["minutes"]))
        assert n == 5 and all(d.doc_type == "minutes" for d in mins)
        _, n_pdf = repo.list_documents(s, repo.DocumentFilter(file_types=["pdf"]))
        assert n_pdf == 13
        hits, n = repo.list_documents(s, repo.DocumentFilter(title_contains="doc 1"))
        assert n == 10  # Doc 10..19
        assert sorted(repo.document_ids(s, repo.DocumentFilter(doc_types=["minutes"]))) == \
            sorted(d.id for d in mins)
        with pytest.raises(NotFound, match="unknown collection 'nope'.*minutes"):
            repo.get_collection(s, "nope")
        with pytest.raises(NotFound):
            repo.get_document(s, 99999)
        assert repo.get_document(s, "Doc 03").title == "Doc 03"
    store.dispose()


def test_existing_database_upgrades_in_place(db_url):
    """A data directory created by an older release keeps its data after the upgrade."""
    engine = make_engine(db_url)
    upgrade(engine, "0001")
    assert current_revision(engine) == "0001"
    assert "retrieval_traces" not in inspect(engine).get_table_names()
    with engine.begin() as c:
        c.execute(text("INSERT INTO collections (name, description, created_at) "
                       "VALUES ('old', '', CURRENT_TIMESTAMP)"))
    engine.dispose()

    store = Store(db_url)  # opening the store migrates to head
    assert current_revision(store.engine) == head_revision()
    assert "retrieval_traces" in inspect(store.engine).get_table_names()
    with store.session() as s:
        assert [c.name for c, _ in repo.list_collections(s)] == ["old"]
    store.dispose()


def test_upgrade_to_0019_fills_the_content_hash_and_keeps_every_chunk(db_url):
    """Migration 0019 adds `content_sha256` in place (no table rebuild: on SQLite a rebuild
    of document_versions would cascade-delete the chunks) and fills it from `sha256`."""
    from datetime import datetime, timezone

    import sqlalchemy as sa

    engine = make_engine(db_url)
    upgrade(engine, "0018")
    now = datetime.now(timezone.utc)
    md = sa.MetaData()
    docs_t, vers, chunks = (sa.Table(n, md, autoload_with=engine)
                            for n in ("documents", "document_versions", "chunks"))
    with engine.begin() as c:
        doc = c.execute(docs_t.insert().returning(docs_t.c.id), {
            "title": "old", "filename": "old.md", "source_kind": "file", "source_uri": "/f/old.md",
            "file_type": "md", "doc_type": "generic", "status": "active", "meta": {},
            "created_at": now, "updated_at": now}).scalar_one()
        ver = c.execute(vers.insert().returning(vers.c.id), {
            "document_id": doc, "number": 1, "sha256": "ab" * 32, "size_bytes": 3,
            "filename": "old.md", "text": "old", "language": "en", "status": "indexed",
            "is_active": True, "meta": {}, "created_at": now}).scalar_one()
        c.execute(chunks.insert(), {"id": "c" * 32, "version_id": ver, "document_id": doc,
                                    "ordinal": 0, "start": 0, "end": 3, "text": "old"})
    engine.dispose()
    store = Store(db_url)
    assert current_revision(store.engine) == head_revision()
    with store.session() as s:
        (v,) = repo.versions_with_content(s, "ab" * 32)
        assert v.id == ver and v.content_sha256 == v.sha256 == "ab" * 32
        assert [c.id for c in repo.chunks_of(s, ver)] == ["c" * 32]
    store.dispose()


def test_upgrade_to_0020_keeps_the_chat_and_sessions_are_regular(db_url):
    """Migration 0020 adds `chat_sessions.context_mode` (existing sessions: regular) and
    `chat_messages.rewrite` in place: the messages of an existing session survive (a batch
    rebuild of chat_sessions on SQLite would cascade-delete them)."""
    from datetime import datetime, timezone

    import sqlalchemy as sa

    from backend.store.chat_models import ChatMessage, ChatSession

    engine = make_engine(db_url)
    upgrade(engine, "0019")
    now = datetime.now(timezone.utc)
    md = sa.MetaData()
    sess_t, msg_t = (sa.Table(n, md, autoload_with=engine)
                     for n in ("chat_sessions", "chat_messages"))
    with engine.begin() as c:
        sid = c.execute(sess_t.insert().returning(sess_t.c.id), {
            "uuid": "u" * 36, "title": "old", "provider": "extractive", "model": "",
            "collections": [], "context_limit": 5, "temperature": 0.7, "max_tokens": 1024,
            "policy": "hybrid", "system_prompt": "", "answer_profile": "markdown",
            "created_at": now, "last_activity": now, "updated_at": now}).scalar_one()
        c.execute(msg_t.insert(), {"session_id": sid, "role": "user", "content": "Frage?",
                                   "sources": [], "citations": {}, "format_check": {},
                                   "collections": [], "provider": "", "model": "",
                                   "tokens_counted_locally": False, "cost_label": "local",
                                   "fallback": False, "created_at": now})
    engine.dispose()
    store = Store(db_url)
    assert current_revision(store.engine) == head_revision()
    with store.session() as s:
        row = s.scalar(sa.select(ChatSession))
        assert row.context_mode == "regular"
        (m,) = s.scalars(sa.select(ChatMessage)).all()
        assert m.content == "Frage?" and m.rewrite is None
    store.dispose()


def test_processes_opening_one_fresh_database_at_once_all_start(db_url):
    """The stack's API workers open a new PostgreSQL database together: each must come up
    (the migrations run one after the other), none may fail on the half-created schema."""
    import subprocess
    import sys

    code = ("import sys; from backend.store.store import Store; "
            "s = Store(sys.argv[1]); s.dispose(); print('ok')")
    procs = [subprocess.Popen([sys.executable, "-c", code, db_url], stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True) for _ in range(4)]
    outs = [p.communicate(timeout=180) for p in procs]
    assert [o.strip() for o, _ in outs] == ["ok"] * 4, [e[-600:] for _, e in outs]
    store = Store(db_url)
    assert current_revision(store.engine) == head_revision()
