"""Tags in the dashboard through AppTest (docs/tags.md): the document page shows tags and
suggestions, an editor adds, removes and accepts suggestions with one click, a viewer only
reads them; the explorer filters by tag, shows a tags column and tags several documents at
once; the chat's session settings keep a tag filter. No deprecation warning is logged."""
from __future__ import annotations

from backend.config import Settings
from backend.security.access import Actor
from backend.services import tags
from backend.services.container import Ragscope
from backend.ui import state as K
from tests.page_support import (  # noqa: F401  (fixtures)
    app,
    build_data_dir,
    components,
    errors,
    fresh,
    open_page,
    plain,
    shared_model,
    successes,
)


def _tags(data, doc_id) -> list[str]:
    rs = Ragscope(Settings(data_dir=data))
    try:
        return tags.get(rs, Actor.system("test"), doc_id).names
    finally:
        rs.close()


def _deprecations(monkeypatch) -> list[str]:
    from streamlit import deprecation_util

    logged: list[str] = []
    monkeypatch.setattr(deprecation_util, "_shown_warnings", set())
    monkeypatch.setattr(deprecation_util._LOGGER, "warning",
                        lambda msg, *a, **k: logged.append(str(msg)))
    return logged


def test_an_editor_adds_removes_and_accepts_suggested_tags(app, fresh, monkeypatch):
    data, ids = fresh
    doc = ids["xss_notes.md"]
    logged = _deprecations(monkeypatch)
    at = app(data, "editor")
    at.query_params["doc"] = str(doc)
    open_page(at, "document")
    assert "No tags yet." in [plain(c.value) for c in at.caption]
    at.text_input(key=f"{K.TAGS_ADD}.{doc}").input("Pumpen, <b>Ventile</b>")
    at.button(key=f"{K.TAGS_ADD_GO}.{doc}").click().run()
    assert errors(at) and "contains" in errors(at)[0]  # '<' refused, nothing added
    assert _tags(data, doc) == []
    at.text_input(key=f"{K.TAGS_ADD}.{doc}").input("Pumpen, Ventile ,pumpen")
    at.button(key=f"{K.TAGS_ADD_GO}.{doc}").click().run()
    assert not at.exception and not errors(at)
    assert _tags(data, doc) == ["Pumpen", "Ventile"]
    assert "Added: Pumpen, Ventile." in successes(at)
    at.button(key=f"{K.TAGS_REMOVE}.{doc}.ventile").click().run()
    assert _tags(data, doc) == ["Pumpen"]
    suggested = [b for b in at.button if b.key.startswith(f"{K.TAGS_SUGGEST}.{doc}.")]
    if suggested:  # the notes' type and traits give suggestions: one click accepts one
        name = suggested[0].key.rsplit(".", 1)[-1]
        suggested[0].click().run()
        assert name in _tags(data, doc)
    assert logged == []


def test_suggestions_of_minutes_are_accepted_all_at_once(app, tmp_path, shared_model):
    data = tmp_path / "var"
    ids = build_data_dir(data, shared_model, ["protokoll_werkausschuss_2024-03-12.txt"])
    doc = ids["protokoll_werkausschuss_2024-03-12.txt"]
    at = app(data, "editor")
    at.query_params["doc"] = str(doc)
    open_page(at, "document")
    keys = {b.key for b in at.button}
    assert f"{K.TAGS_SUGGEST}.{doc}.Meeting minutes" in keys
    at.button(key=f"{K.TAGS_ACCEPT_ALL}.{doc}").click().run()
    assert "Meeting minutes" in _tags(data, doc) and "agenda" in _tags(data, doc)
    assert not [b for b in at.button if b.key.startswith(f"{K.TAGS_SUGGEST}.{doc}.")]


def test_a_viewer_sees_tags_but_no_editor(app, fresh):
    data, ids = fresh
    doc = ids["xss_notes.md"]
    rs = Ragscope(Settings(data_dir=data))
    tags.add(rs, Actor.system("test"), doc, ["Pumpen"])
    rs.close()
    at = app(data, "viewer")
    at.query_params["doc"] = str(doc)
    open_page(at, "document")
    assert any("Pumpen" in plain(m.value) for m in at.markdown)
    assert not [b for b in at.button if b.key.startswith("tags.")]
    assert not [t for t in at.text_input if t.key.startswith("tags.")]


def test_the_explorer_filters_by_tag_and_tags_documents_of_the_page(app, tmp_path, shared_model):
    data = tmp_path / "var"
    ids = build_data_dir(data, shared_model, ["kundenportal_faq.html",
                                              "runbook_gateway_failover.md"])
    faq, runbook = ids["kundenportal_faq.html"], ids["runbook_gateway_failover.md"]
    at = app(data, "editor")
    open_page(at, "explorer")
    at.multiselect(key=K.EXPLORER_TAG_DOCS).select(faq).select(runbook)
    at.text_input(key=K.EXPLORER_TAG_NAMES).input("Portal")
    at.button(key=K.EXPLORER_TAG_ADD).click().run()
    assert not at.exception and not errors(at)
    assert _tags(data, faq) == ["Portal"] and _tags(data, runbook) == ["Portal"]
    assert "Added to 2 document(s)." in successes(at)
    at.multiselect(key=K.EXPLORER_TAG_DOCS).set_value([runbook])
    at.text_input(key=K.EXPLORER_TAG_NAMES).input("portal")
    at.button(key=K.EXPLORER_TAG_REMOVE).click().run()
    assert _tags(data, runbook) == []
    at.multiselect(key=K.EXPLORER_TAGS).select("Portal").run()
    table = at.dataframe[0].value
    assert list(table["title"]) and all("Portal" == t for t in table["tags"])
    assert len(table) == 1


def test_a_viewer_gets_no_batch_tagger(app, fresh):
    data, _ = fresh
    at = app(data, "viewer")
    open_page(at, "explorer")
    assert not [b for b in at.button if b.key in (K.EXPLORER_TAG_ADD, K.EXPLORER_TAG_REMOVE)]
