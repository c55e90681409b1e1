"""Every dashboard page through streamlit.testing.v1.AppTest: it renders, its main
interactions work, and a role without access sees an error instead of the page (the shared
fixtures and page steps: tests/page_support.py)."""
from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

from backend.security import auth
from backend.config import Settings
from backend.services.container import Ragscope
from backend.store import repo
from backend.store.models import Document, DocumentVersion
from backend.ui import state as K
from tests.page_support import (  # noqa: F401  (fixtures)
    FALLBACK,
    PASSWORDS,
    XSS_MD,
    app,
    bare,
    components,
    corpus,
    errors,
    fresh,
    has_button,
    open_page,
    plain,
    shared_model,
    sign_in,
    settle_jobs,
    successes,
)


# ---- sign-in ------------------------------------------------------------------------------


def test_signed_out_sees_only_the_login_form(app, corpus):
    at = app(corpus[0])
    at.run()
    assert not at.exception
    assert [t.label for t in at.text_input] == ["Username", "Password"]
    assert not at.title or at.title[0].value == "ragscope"
    assert not at.metric and not at.dataframe


def test_wrong_password_and_unknown_user_get_the_same_message(app, corpus):
    at = app(corpus[0])
    at.run()
    sign_in(at, "viewer", "not-the-password")
    first = errors(at)
    sign_in(at, "no-such-user", "not-the-password")
    assert first == errors(at) == ["Username or password is incorrect."]
    assert at.session_state[K.AUTH_STATUS] is not True


def test_correct_password_signs_in(app, corpus):
    at = app(corpus[0])
    at.run()
    sign_in(at, "Viewer", PASSWORDS["viewer"])
    assert not at.exception and not errors(at)
    assert at.session_state[K.AUTH_USERNAME] == "viewer"
    assert any("Signed in as" in c.value for c in at.sidebar.caption)
    assert [m.label for m in at.metric][:2] == ["Documents", "Active chunks"]
    assert K.LOGIN_ATTEMPT not in at.session_state  # the password is not kept
    at.sidebar.button(key=K.APP_SIGN_OUT).click().run()
    assert at.session_state[K.AUTH_STATUS] is None and not at.metric


def test_five_failures_lock_the_user_name(app, bare):
    at = app(bare[0])
    at.run()
    for _ in range(5):
        sign_in(at, "editor", "wrong-password-x")
    sign_in(at, "editor", PASSWORDS["editor"])  # right password, but locked
    assert "Too many failed sign-in attempts" in errors(at)[0]
    assert at.session_state[K.AUTH_STATUS] is not True
    sign_in(at, "viewer", PASSWORDS["viewer"])  # other users are not affected
    assert at.session_state[K.AUTH_STATUS] is True


def test_disabled_user_is_signed_out_on_the_next_run(app, bare):
    at = app(bare[0], "viewer")
    at.run()
    assert at.metric
    auth.UserStore(auth.AuthPaths.under(bare[0])).set_disabled("viewer", True)
    at.run()  # the page itself refuses
    assert errors(at) == ["Please sign in first."] and not at.metric
    again = app(bare[0], "viewer")  # through app.py: the sign-in form
    again.run()
    assert [t.label for t in again.text_input] == ["Username", "Password"]
    assert again.session_state[K.AUTH_STATUS] is None


# ---- roles ------------------------------------------------------------------------------


@pytest.mark.parametrize("page,title", [("home", "ragscope"), ("explorer", "Document explorer"),
                                        ("document", "Document"), ("structure", "Structure")])
def test_viewer_pages_render(app, corpus, page, title):
    at = open_page(app(corpus[0], "viewer"), page)
    assert at.title[0].value == title
    assert not errors(at)


@pytest.mark.parametrize("user,page", [("viewer", "upload"), ("viewer", "admin_users"),
                                       ("viewer", "settings"), ("editor", "admin_users"),
                                       ("editor", "settings")])
def test_role_without_access_sees_an_error(app, corpus, user, page):
    at = open_page(app(corpus[0], user), page)  # a crafted URL reaches the hidden page
    assert errors(at) and errors(at)[0].startswith("Access denied")
    assert not at.title and not at.file_uploader and not at.dataframe and not at.main.button


@pytest.mark.parametrize("page", ["home", "explorer", "document", "structure", "upload",
                                  "admin_users", "settings"])
def test_signed_out_reaches_no_page(app, corpus, page):
    at = app(corpus[0], "viewer")
    at.run()  # registers the pages; then the session loses its sign-in
    at.session_state[K.AUTH_STATUS] = None
    at.switch_page(f"pages/{page}.py").run()
    assert not at.exception and errors(at) == ["Please sign in first."]
    assert not at.title and not at.dataframe and not at.main.button


def test_viewer_gets_no_actions_even_with_query_parameters(app, corpus):
    at = app(corpus[0], "viewer")
    doc_id = corpus[1]["xss_notes.md"]
    at.query_params["doc"] = str(doc_id)
    at.query_params["action"] = "delete"
    open_page(at, "document")
    keys = {b.key for b in at.button}
    assert not keys & {K.DOCUMENT_DELETE, K.DOCUMENT_DELETE_CONFIRM, K.DOCUMENT_ACTIVATE}
    rs = Ragscope(Settings(data_dir=corpus[0]))
    with rs.store.session() as s:
        assert s.get(Document, doc_id) is not None
    rs.close()


# ---- home and explorer -----------------------------------------------------------------


def test_home_shows_the_state_of_the_system(app, corpus):
    at = open_page(app(corpus[0], "admin"), "home")
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["Documents"] == str(len(corpus[1]))
    assert int(metrics["Active chunks"]) > 0 and metrics["Collections"] == "2"
    assert any("tantivy" in m.value for m in at.markdown)
    assert len(at.dataframe) == 3  # collections, indexes, jobs
    viewer = open_page(app(corpus[0], "viewer"), "home")  # the same counts (group everyone)
    assert {m.label: m.value for m in viewer.metric} == metrics
    assert len(viewer.dataframe) == 1  # indexes and jobs cover every collection: admins only
    assert any("shown to admins" in i.value for i in viewer.info)


def test_explorer_filters_and_opens_a_document(app, corpus):
    at = open_page(app(corpus[0], "viewer"), "explorer")
    assert len(at.dataframe[0].value) == len(corpus[1])
    at.text_input(key=K.EXPLORER_SEARCH).input("xss").run()
    assert list(at.dataframe[0].value["title"]) == ["Notes <script>alert('t')</script>"] or \
        list(at.dataframe[0].value["file"]) == ["xss_notes.md"]
    at.text_input(key=K.EXPLORER_SEARCH).input("").run()
    at.multiselect(key=K.EXPLORER_COLLECTIONS).select("web").run()
    assert list(at.dataframe[0].value["file"]) == ["xss_notes.md"]
    at.multiselect(key=K.EXPLORER_COLLECTIONS).unselect("web").run()
    at.text_input(key=K.EXPLORER_SEARCH_TEXT).input("pumps and valves").run()
    assert list(at.dataframe[0].value["file"]) == ["xss_notes.md"]
    # a click on a row opens its document (issue 23: a dropdown plus a button before)
    at.session_state[f"{K.EXPLORER_TABLE}.0"] = {"selection": {"rows": [0], "columns": [],
                                                               "cells": []}}
    at.run()
    assert not at.exception and at.title[0].value == "Document"
    assert at.session_state[K.EXPLORER_DOC_ID] == corpus[1]["xss_notes.md"]
    assert at.query_params["doc"] in (str(corpus[1]["xss_notes.md"]),
                                      [str(corpus[1]["xss_notes.md"])])
    at.switch_page("pages/explorer.py").run()  # back: the explorer again, nothing selected
    assert not at.exception and at.title[0].value == "Document explorer"


def test_explorer_paginates_without_loading_everything(app, bare):
    data = bare[0]
    rs = Ragscope(Settings(data_dir=data))
    with rs.store.session() as s:
        bulk = [Document(title=f"bulk {i:03d}", filename=f"bulk{i}.txt", source_kind="file",
                         source_uri=f"file:///bulk/{i}", file_type="txt", status="active")
                for i in range(60)]
        s.add_all(bulk)
        s.flush()
        default = repo.get_or_create_collection(s, rs.settings.default_collection)
        for d in bulk:  # every document is in a collection (the viewer reads `default`)
            repo.link(s, default, d.id)
    rs.close()
    at = open_page(app(data, "viewer"), "explorer")
    total = 60
    assert f"of {total}" in at.caption[0].value and len(at.dataframe[0].value) == 25
    at.pagination(key=K.EXPLORER_PAGER).set_value(3).run()
    assert at.caption[0].value.startswith(f"Documents 51–{total}")
    at.text_input(key=K.EXPLORER_SEARCH).input("bulk 05").run()  # a filter: back to page 1
    assert at.caption[0].value.startswith("Documents 1–10 of 10")
    at.text_input(key=K.EXPLORER_SEARCH).input("").run()
    at.selectbox(key=K.EXPLORER_PAGE_SIZE).select(100).run()
    assert len(at.dataframe[0].value) == total


def test_explorer_shows_control_and_bidi_characters_in_names_as_escapes(app, bare):
    """A file named `bericht\u202etxt.md` showed as `berichtdm.txt`; one with ESC or a
    newline reached the page raw."""
    data = bare[0]
    rs = Ragscope(Settings(data_dir=data))
    names = ["bericht\u202etxt.md", "zeile\nzwei.md", "\x1b[2Jklar.md"]
    with rs.store.session() as s:
        docs = [Document(title=n.rsplit(".", 1)[0], filename=n, source_kind="file",
                         source_uri=f"file:///x/{i}", file_type="md", status="active")
                for i, n in enumerate(names)]
        s.add_all(docs)
        s.flush()
        default = repo.get_or_create_collection(s, rs.settings.default_collection)
        for d in docs:
            repo.link(s, default, d.id)
    rs.close()
    at = open_page(app(data, "viewer"), "explorer")
    shown = set(at.dataframe[0].value["file"])
    assert shown == {"bericht\\u202etxt.md", "zeile\\nzwei.md", "\\x1b[2Jklar.md"}
    assert not any(ch in "".join(at.dataframe[0].value["title"]) for ch in "\u202e\n\x1b")


# ---- document detail -------------------------------------------------------------------


def test_document_detail_text_sections_chunks_download(app, corpus):
    at = app(corpus[0], "viewer")
    at.query_params["doc"] = str(corpus[1]["runbook_gateway_failover.md"])
    open_page(at, "document")
    assert at.get("download_button") and at.dataframe  # versions table
    full = at.text[0].value
    assert len(at.selectbox(key=K.DOCUMENT_SECTION).options) > 2
    at.selectbox(key=K.DOCUMENT_SECTION).select_index(2).run()
    part = at.text[0].value
    assert part and part in full and len(part) < len(full)
    tables = len(at.dataframe)  # the chunk table is sent when its tab is opened
    at.session_state[K.DOCUMENT_TAB] = "Chunks"
    at.run()
    assert not at.text and len(at.dataframe) == tables + 1
    chunks = at.dataframe[-1].value
    assert {"start", "end", "page", "section"} <= set(chunks.columns) and len(chunks) > 1


def test_document_text_with_html_is_shown_as_text(app, corpus):
    at = app(corpus[0], "viewer")
    at.query_params["doc"] = str(corpus[1]["xss_notes.md"])
    open_page(at, "document")
    assert any("<script>alert('t')</script>" in c.value for c in at.text)
    assert any("onerror=alert(1)" in c.value for c in at.text)
    for el in list(at.markdown) + list(at.caption) + list(at.subheader):
        raw = el.proto.body if hasattr(el.proto, "body") else el.value
        assert "<script" not in raw or "\\<script" in raw, raw
        assert not getattr(el.proto, "allow_html", False)
    open_page(at, "structure")
    for el in list(at.expander):
        assert "<script" not in el.label or "\\<script" in el.label


def test_editor_deletes_a_document_after_confirming(app, fresh):
    data, ids = fresh
    doc_id = ids["xss_notes.md"]
    at = app(data, "editor")
    at.query_params["doc"] = str(doc_id)
    open_page(at, "document")
    at.button(key=K.DOCUMENT_DELETE).click().run()
    assert at.warning and "cannot be undone" in at.warning[0].value
    at.button(key=K.DOCUMENT_DELETE_CANCEL).click().run()
    assert not at.warning
    at.button(key=K.DOCUMENT_DELETE).click().run()
    at.button(key=K.DOCUMENT_DELETE_CONFIRM).click().run()
    assert not at.exception and f"Deleted document {doc_id}." in successes(at)
    rs = Ragscope(Settings(data_dir=data))
    with rs.store.session() as s:
        assert s.get(Document, doc_id) is None
    rs.close()


def test_editor_activates_another_version(app, fresh, shared_embedder):
    from backend.ingest.service import Ingestor

    data, ids = fresh
    rs = Ragscope(Settings(data_dir=data))
    rs.embedder = shared_embedder
    ing = Ingestor(rs)
    v2 = ing.ingest_bytes(XSS_MD + b"\n## Third part\n\nNew text.\n", "xss_notes.md",
                          source_uri="upload://xss_notes.md")
    assert v2.status == "new_version" and v2.document_id == ids["xss_notes.md"]
    at = app(data, "editor")
    at.query_params["doc"] = str(v2.document_id)
    open_page(at, "document")
    assert not has_button(at, K.DOCUMENT_ACTIVATE)  # the active version is shown
    at.selectbox(key=K.DOCUMENT_VERSION_PICK).select_index(1).run()  # the older one
    at.button(key=K.DOCUMENT_ACTIVATE).click().run()
    assert not at.exception and "Version 1 is now active." in successes(at)
    with rs.store.session() as s:
        assert s.get(DocumentVersion, v2.version_id).is_active is False
        assert s.get(Document, v2.document_id).active_version_id != v2.version_id
    rs.close()


# ---- structure ---------------------------------------------------------------------------


def test_structure_tree_chart_and_section_choice(app, corpus):
    at = app(corpus[0], "viewer")
    at.query_params["doc"] = str(corpus[1]["runbook_gateway_failover.md"])
    open_page(at, "structure")
    table = next(d for d in at.dataframe if (d.key or "").startswith(K.STRUCTURE_TABLE))
    sections = list(table.value["section"])
    assert sections[0] == "(whole document)" and len(sections) >= 3
    assert not at.get("plotly_chart")  # the chart is one toggle away (its code is 4.6 MB)
    whole = at.text[0].value
    # one click on a section's row shows it (issue 23: an expander, then a button in it)
    at.session_state[table.key] = {"selection": {"rows": [2], "columns": [], "cells": []}}
    at.run()
    assert not at.exception
    assert at.text[0].value != whole and at.text[0].value in whole
    assert at.subheader[-1].value.strip() in sections[2]
    at.toggle(key=K.STRUCTURE_CHART_ON).set_value(True).run()
    assert not at.exception and at.get("plotly_chart")
    assert at.text[0].value != whole  # the chosen section stays shown with the chart
    at.radio(key=K.STRUCTURE_SIZE_BY).set_value("chunks").run()
    at.radio(key=K.STRUCTURE_CHART).set_value("treemap").run()
    assert not at.exception and at.get("plotly_chart")


# ---- upload ------------------------------------------------------------------------------


def test_a_large_upload_runs_in_the_background_and_lists_every_file(app, bare):
    from backend.services import dashboard_jobs

    data = bare[0]
    at = open_page(app(data, "editor"), "upload")
    up = at.file_uploader[0]
    names = [f"note_{i}.md" for i in range(dashboard_jobs.BACKGROUND_UPLOAD_FILES)]
    for i, name in enumerate(names):
        up.upload(name, f"# Note {i}\n\nPump P-{i} is checked on day {i}.\n".encode(),
                  "text/markdown")
    up.upload("malware.exe", b"MZ\x90\x00", "application/octet-stream")
    at.text_input(key=K.UPLOAD_COLLECTION).input("uploads")
    at.run()
    at.button(key=K.UPLOAD_GO).click().run()  # returns at once: a job, no per-file boxes
    assert not at.exception and not at.status
    shown = [plain(w.value) for w in at.warning]  # a job can end before the click's rerun
    settle_jobs(at, data)
    assert not at.exception
    shown += [plain(w.value) for w in at.warning]
    n = len(names) + 1
    assert f"{n - 1} of {n} files ingested, 1 failed." in shown, shown
    results = at.session_state[K.UPLOAD_RESULTS]
    assert [r["status"] for r in results] == ["new"] * (n - 1) + ["failed"]
    assert "unsupported file type '.exe'" in results[-1]["error"]
    assert any(d.value is not None for d in at.dataframe)  # the list of files


def test_upload_several_files_with_per_file_errors(app, bare, monkeypatch):
    data = bare[0]
    monkeypatch.setenv("RAGSCOPE_MAX_UPLOAD_MB", "0.002")  # about 2 KB
    at = open_page(app(data, "editor"), "upload")
    up = at.file_uploader[0]
    up.upload("pump_notes.md", FALLBACK["notes.md"], "text/markdown")
    up.upload("malware.exe", b"MZ\x90\x00", "application/octet-stream")
    up.upload("huge.txt", b"big text " * 400, "text/plain")
    up.upload("faq.txt", FALLBACK["faq.txt"], "text/plain")
    at.text_input(key=K.UPLOAD_COLLECTION).input("uploads")
    at.run()
    at.button(key=K.UPLOAD_GO).click().run()
    assert not at.exception
    assert len(at.status) == 4
    assert any("malware.exe: unsupported file type '.exe'" in e for e in errors(at))
    assert any("huge.txt: file is" in e and "over the upload limit" in e for e in errors(at))
    assert "2 of 4 files ingested, 2 failed." in [plain(w.value) for w in at.warning]
    results = at.session_state[K.UPLOAD_RESULTS]
    assert [r["status"] for r in results] == ["new", "failed", "failed", "new"]
    rs = Ragscope(Settings(data_dir=data))
    with rs.store.session() as s:
        active = s.query(Document).filter(Document.status == "active").all()
        assert sorted(d.filename for d in active) == ["faq.txt", "pump_notes.md"]
    rs.close()
    at.run()  # the next run shows the last results, with an empty uploader
    assert at.dataframe and any("malware.exe" in e for e in errors(at))


# ---- admin ---------------------------------------------------------------------------------


def test_admin_manages_users(app, bare):
    data = bare[0]
    store = auth.UserStore(auth.AuthPaths.under(data))
    at = open_page(app(data, "admin"), "admin_users")
    at.text_input(key=K.ADMIN_USERS_NEW_USERNAME).input("carol")
    at.selectbox(key=K.ADMIN_USERS_NEW_ROLE).select("editor")
    at.button[0].click().run()  # the form's submit button
    assert "Added carol (editor)." in successes(at)
    generated = at.code[0].value
    assert len(generated) >= auth.MIN_PASSWORD_LEN and store.get("carol").role == "editor"

    at.selectbox(key=K.ADMIN_USERS_TARGET).select("carol").run()
    at.selectbox(key=f"{K.ADMIN_USERS_ROLE}.carol").select("viewer").run()
    at.button(key=K.ADMIN_USERS_SET_ROLE).click().run()
    assert store.get("carol").role == "viewer"
    at.button(key=K.ADMIN_USERS_TOGGLE).click().run()
    assert store.get("carol").disabled
    at.button(key=K.ADMIN_USERS_RESET).click().run()
    assert at.code and at.code[0].value != generated
    at.selectbox(key=K.ADMIN_USERS_TARGET).select("admin").run()
    assert at.button(key=K.ADMIN_USERS_TOGGLE).disabled  # no self-lockout


def test_admin_settings_check_and_reindex(app, fresh):
    at = open_page(app(fresh[0], "admin"), "settings")
    table = at.dataframe[0].value
    assert "data_dir" in set(table["setting"])
    at.button(key=K.SETTINGS_CHECK).click().run()
    assert any(m.startswith("Store and both indexes agree") for m in successes(at))
    at.button(key=K.SETTINGS_REINDEX).click().run()
    at.button(key=K.SETTINGS_REINDEX_CONFIRM).click().run()  # starts the background job
    assert not at.exception
    shown = successes(at)  # a small job can end before the click's own rerun: shown there
    settle_jobs(at, fresh[0])
    shown += successes(at)
    assert not at.exception and any(m.startswith("Reindexed") for m in shown), shown


# ---- untrusted text renders as text (issue 10, finding 13) --------------------------------

PAYLOAD = "![x](http://127.0.0.1:9/p.png) [link](http://evil) :material/home:"
HOSTILE_DOCX_NAME = f"{PAYLOAD} report.docx"


def hostile_docx() -> bytes:
    """A DOCX whose package points at a part named after the payload: python-docx fails with
    a KeyError naming it, so the stored error carries text chosen by the file's author."""
    import io
    import zipfile

    ct = ('<?xml version="1.0" encoding="UTF-8" standalone="yes"?><Types xmlns="http://'
          'schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" '
          'ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default '
          'Extension="xml" ContentType="application/xml"/></Types>')
    rels = ('<?xml version="1.0" encoding="UTF-8" standalone="yes"?><Relationships xmlns="http'
            '://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" '
            'Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/'
            f'officeDocument" Target="word/{PAYLOAD} x.xml"/></Relationships>')
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        z.writestr("[Content_Types].xml", ct)
        z.writestr("_rels/.rels", rels)
    return buf.getvalue()


def markdown_shown(at: AppTest) -> list[tuple[str, str]]:
    """(element, Markdown source) of everything the page renders as Markdown."""
    out = [(el.type, el.value) for kind in ("title", "subheader", "header", "markdown",
                                             "caption", "error", "warning", "info", "success")
           for el in getattr(at, kind)]
    out += [("metric", v) for m in at.metric for v in (m.label, m.value)]
    out += [(kind, w.label) for kind in ("button", "selectbox", "multiselect", "text_input",
                                         "checkbox", "toggle", "radio", "expander", "tabs",
                                         "status")
            for w in getattr(at, kind)]
    return out


def test_a_hostile_docx_error_and_file_name_render_as_text(app, fresh, shared_model):
    from backend.ingest.service import Ingestor
    from tests.streamlit_markdown import hazards

    data = fresh[0]
    rs = Ragscope(Settings(data_dir=data))
    rs.embedder = shared_model
    out = Ingestor(rs).ingest_bytes(hostile_docx(), HOSTILE_DOCX_NAME)
    rs.close()
    assert out.status == "failed" and out.error.count("](http") >= 4, out.error
    at = app(data, "viewer")
    at.query_params["doc"] = str(out.document_id)
    open_page(at, "document")
    shown = errors(at)
    assert any(f"{PAYLOAD} report.docx: not a valid DOCX" in e and "KeyError" in e
               for e in shown), shown  # the whole error, literally
    live = [(kind, src, hazards(src)) for kind, src in markdown_shown(at) if hazards(src)]
    assert not live, live
