"""The classification parts of the dashboard through AppTest: the document page shows type,
profile and traits and lets an editor set the title and the profile; the admin page
"Document types" edits the registry and reclassifies; roles are checked."""
from __future__ import annotations

from backend.config import Settings
from backend.services.container import Ragscope
from backend.store import repo
from backend.ui import state as K
from tests.page_support import (  # noqa: F401  (fixtures)
    app,
    build_data_dir,
    components,
    errors,
    fresh,
    open_page,
    plain,
    settle_jobs,
    shared_model,
    successes,
)


def _doc(data, doc_id):
    rs = Ragscope(Settings(data_dir=data))
    try:
        with rs.store.session() as s:
            d = repo.get_document(s, doc_id)
            v = next(v for v in d.versions if v.id == d.active_version_id)
            return d.title, d.doc_type, v.processing_profile
    finally:
        rs.close()


def test_document_page_shows_classification_and_editor_sets_title_and_profile(app, fresh):
    data, ids = fresh
    doc = ids["xss_notes.md"]
    at = app(data, "editor")
    at.query_params["doc"] = str(doc)
    open_page(at, "document")
    labels = [plain(c.value) for c in at.caption]  # the facts: a caption over each value
    assert {"Primary type", "Processing profile", "Confidence"} <= set(labels)
    at.text_input(key=K.DOCUMENT_TITLE).input("Pumpen <b>Notizen</b>")
    at.button(key="FormSubmitter:document.title_form-Save title").click().run()
    assert not at.exception and not errors(at)
    assert _doc(data, doc)[0] == "Pumpen <b>Notizen</b>"
    assert "Title saved" in successes(at)[0]
    at.selectbox(key=K.DOCUMENT_PROFILE).select("ocr_resilient")
    at.button(key=K.DOCUMENT_PROFILE_APPLY).click().run()
    assert not errors(at) and _doc(data, doc)[2] == "ocr_resilient"


def test_viewer_sees_classification_but_cannot_edit(app, fresh):
    data, ids = fresh
    at = app(data, "viewer")
    at.query_params["doc"] = str(ids["xss_notes.md"])
    open_page(at, "document")
    assert "Primary type" in [plain(c.value) for c in at.caption]
    assert not any(b.key == K.DOCUMENT_PROFILE_APPLY for b in at.button)
    assert not any(t.key == K.DOCUMENT_TITLE for t in at.text_input)


def test_admin_edits_the_registry_and_reclassifies(app, fresh):
    data, ids = fresh
    at = open_page(app(data, "admin"), "document_types")
    assert at.title[0].value == "Document types" and not errors(at)
    at.text_input(key=K.doctypes_field("", "name")).input("pump_notes")
    at.text_input(key=K.doctypes_field("", "label")).input("Pump notes")
    at.number_input(key=K.doctypes_field("", "priority")).set_value(100)
    at.text_area(key=K.doctypes_field("", "signals")).input('{"title": ["(?i)pump|notes"]}')
    at.button(key="FormSubmitter:doctypes.form-Save type").click().run()
    assert not errors(at), errors(at)
    assert "Saved pump_notes" in successes(at)[0]
    at.button(key=K.DOCTYPES_RECLASSIFY).click().run()  # starts the background job
    shown = successes(at)  # a small job can end before the click's own rerun: shown there
    settle_jobs(at, data)
    shown += successes(at)
    assert not errors(at) and any("version(s) classified" in m for m in shown), shown
    assert _doc(data, ids["xss_notes.md"])[1] == "pump_notes"


def test_bad_signals_show_the_reason(app, fresh):
    data, _ = fresh
    at = open_page(app(data, "admin"), "document_types")
    at.selectbox(key=K.DOCTYPES_PICK).select("policy").run()
    at.text_area(key=K.doctypes_field("policy", "signals")).input('{"title": ["(oops"]}')
    at.button(key="FormSubmitter:doctypes.form-Save type").click().run()
    assert any("policy: signal 'title' has a bad pattern" in e for e in errors(at))


def test_editor_cannot_open_the_registry(app, fresh):
    data, _ = fresh
    at = open_page(app(data, "editor"), "document_types")
    assert errors(at) and errors(at)[0].startswith("Access denied")
    assert not at.dataframe and not at.main.button
