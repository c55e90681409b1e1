"""The upload page forces either way of the same-name rule (backend/ingest/identity.py):
by default a file named like a document of the collection becomes its new version (the page
says so); "Always a new document" keeps it apart; "New version of a document I name" joins
any file to the named document, and an unknown name is refused before anything is stored."""
from __future__ import annotations

from backend.config import Settings
from backend.services.container import Ragscope
from backend.store import repo
from backend.ui import state as K
from tests.page_support import (  # noqa: F401  (fixtures)
    app,
    components,
    errors,
    fresh,
    open_page,
    shared_model,
)

NOTES = b"# Pumpen\n\nDie Pumpe P4 wurde am Montag getauscht; der Motorschutz ist neu eingestellt.\n"


def _upload(at, name: str, data: bytes, identity: str = "auto", version_of: str = ""):
    at.file_uploader[0].upload(name, data, "text/markdown")
    at.text_input(key=K.UPLOAD_COLLECTION).input("web")
    at.selectbox(key=K.UPLOAD_IDENTITY).set_value(identity).run()
    if version_of:
        at.text_input(key=K.UPLOAD_VERSION_OF).input(version_of)
    at.run()
    at.button(key=K.UPLOAD_GO).click().run()
    assert not at.exception, [e.value for e in at.exception]
    return at.session_state[K.UPLOAD_RESULTS]


def _versions(data, doc_id) -> int:
    rs = Ragscope(Settings(data_dir=data))
    try:
        with rs.store.session() as s:
            return len(repo.get_document(s, doc_id).versions)
    finally:
        rs.close()


def _file_doc(data, embedder, folder) -> int:
    """A document from a file path (another source than an upload) in collection "web"."""
    from backend.ingest.service import Ingestor

    folder.mkdir()
    (folder / "anleitung.md").write_bytes(NOTES.replace(b"P4", b"P3"))
    rs = Ragscope(Settings(data_dir=data))
    rs.embedder = embedder
    try:
        return Ingestor(rs).ingest_paths([folder / "anleitung.md"], collection="web")[0].document_id
    finally:
        rs.close()


def test_upload_forces_either_way_of_the_same_name_rule(app, fresh, shared_model, tmp_path):
    data, _ = fresh
    doc = _file_doc(data, shared_model, tmp_path / "alt")
    at = open_page(app(data, "editor"), "upload")
    rows = _upload(at, "anleitung.md", NOTES)
    assert (rows[0]["status"], rows[0]["document"]) == ("new_version", doc)
    assert any("became version 2 of document" in i.value for i in at.info)  # says why

    at = open_page(app(data, "editor"), "upload")
    rows = _upload(at, "anleitung.md", NOTES + b"\nNachtrag.\n", identity="new_document")
    assert rows[0]["status"] == "new" and rows[0]["document"] != doc

    at = open_page(app(data, "editor"), "upload")
    rows = _upload(at, "pumpen_mai.md", NOTES + b"\nMai.\n", identity="version_of",
                   version_of=str(doc))
    assert (rows[0]["status"], rows[0]["document"]) == ("new_version", doc)
    assert _versions(data, doc) == 3

    at = open_page(app(data, "editor"), "upload")
    _upload(at, "pumpen_juni.md", NOTES + b"\nJuni.\n", identity="version_of",
            version_of="no_such_document.md")
    assert any("document 'no_such_document.md' not found" in e for e in errors(at))
    assert _versions(data, doc) == 3
