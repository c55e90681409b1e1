"""What an upload says about each file (issue 23, item 6): a file whose content is stored
already names the document it matched, links to it, and says whether it was added to the
collection of the upload; every ingested file links to its document; the line under the
upload counts new, already stored and failed files apart."""
from __future__ import annotations

from backend.security.access import Actor
from backend.security.safe_markdown import unescape
from backend.services import document_actions
from backend.ui import state as K
from tests.test_pages import app, bare, components, open_page, shared_model  # noqa: F401

ADMIN = Actor("admin", "admin")
DOC = b"# Pump handbook\n\nThe intake pump is checked every morning by the shift.\n"


def test_a_duplicate_names_the_stored_document_and_the_collection(rs):
    (first,) = document_actions.ingest_uploads(rs, [("pumps.md", DOC)], ADMIN,
                                               collection="alpha")
    assert first.status == "new"
    assert document_actions.outcome_label(first).startswith(
        f"pumps.md — ingested as a new document (document {first.document_id})")
    (dup,) = document_actions.ingest_uploads(rs, [("copy_of_pumps.md", DOC)], ADMIN,
                                             collection="beta")
    assert (dup.status, dup.document_id, dup.chunks) == ("duplicate", first.document_id, 0)
    assert document_actions.outcome_label(dup) == (
        f"copy_of_pumps.md — already stored (same content) as document {first.document_id} "
        "“Pump handbook”")
    assert dup.note == (f"Nothing new stored: the same content as document {first.document_id} "
                        "(Pump handbook, version 1); added it to collection beta.")
    (again,) = document_actions.ingest_uploads(rs, [("copy_of_pumps.md", DOC)], ADMIN,
                                               collection="beta")
    assert again.note.endswith("; it is in collection beta already.")
    assert document_actions.batch_message([first, dup]) == (
        "1 of 2 files ingested, 1 already stored (nothing new ingested).", False)


def test_upload_page_links_every_file_to_its_document(app, bare):
    at = open_page(app(bare[0], "editor"), "upload")
    for name in ("pumps.md", "pumps_again.md"):
        at.run()  # the uploader of the next upload (a new key after each one)
        at.file_uploader[0].upload(name, DOC, "text/markdown")
        at.run()
        at.button(key=K.UPLOAD_GO).click().run(timeout=240)  # a loaded machine
        assert not at.exception, [e.value for e in at.exception]
    (row,) = at.session_state[K.UPLOAD_RESULTS]
    doc = row["document"]
    assert row["status"] == "duplicate" and doc
    labels = [s.proto.label for s in at.get("expandable")] + [s.label for s in at.status]
    assert any(f"already stored (same content) as document {doc}" in unescape(x)
               for x in labels), labels
    assert any("added it to collection" in i.value or "in collection" in i.value
               for i in at.info), [i.value for i in at.info]
    assert "0 of 1 files ingested, 1 already stored (nothing new ingested)." in [
        unescape(s.value) for s in at.success]
    links = [(e.proto.page, e.proto.query_string) for e in at.get("page_link")]
    assert any(page.endswith("document") and qs == f"doc={doc}" for page, qs in links), links
    at.run()  # the next run: "Last upload" links it too
    links = [(e.proto.page, e.proto.query_string) for e in at.get("page_link")]
    assert any(qs == f"doc={doc}" for _, qs in links), links
