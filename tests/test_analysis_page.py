"""The Analysis page through AppTest: a viewer sees the decisions of the Werkausschuss minutes
in a table whose links open the section on the document page, a summary with its sources,
the version diff side by side, and downloads; document text stays escaped."""
from __future__ import annotations

import pytest

from backend.config import Settings
from backend.services.container import Ragscope
from backend.ui import state as K
from tests.conftest import ROOT, SAMPLES
from tests.page_support import (  # noqa: F401  (fixtures)
    XSS_MD,
    add_users,
    app,
    components,
    errors,
    open_page,
    shared_model,
)

MINUTES = "protokoll_werkausschuss_2024-03-12.txt"


@pytest.fixture(scope="module")
def data(tmp_path_factory, shared_embedder):
    """The minutes in two versions and a document with HTML in its text."""
    from backend.ingest.service import Ingestor

    data = tmp_path_factory.mktemp("analysis_page") / "var"
    rs = Ragscope(Settings(data_dir=data))
    rs.embedder = shared_embedder
    ing = Ingestor(rs)
    uri = str((SAMPLES / MINUTES).resolve())
    ing.ingest_bytes((SAMPLES / MINUTES).read_bytes(), MINUTES, source_uri=uri)
    v2 = ing.ingest_bytes((ROOT / "data" / "samples_v2" / MINUTES).read_bytes(), MINUTES,
                          source_uri=uri)
    xss = ing.ingest_bytes(XSS_MD.replace(b"More text", b"Decision: The board approves "
                                          b"<script>alert(2)</script>. More text"), "xss.md")
    rs.close()
    add_users(data)
    return data, v2.document_id, v2.version_id, xss.document_id


def test_decisions_table_links_to_the_section(app, data):
    path, doc, version_id, _ = data
    at = app(path, "viewer")
    at.query_params["doc"] = str(doc)
    open_page(at, "analysis")
    assert at.title[0].value == "Analysis" and not errors(at)
    decisions = at.dataframe[0].value
    assert list(decisions["label"]) == ["Beschluss", "Beschluss 2024/17", "Beschluss 2024/18",
                                        "Beschluss"]
    row = decisions.iloc[1]
    assert row["section"] == "TOP 3: Wasserpreise ab 1. Januar 2025"
    assert "4 Ja-Stimmen" in row["text"] and row["vote"] == "4 yes, 1 no, 1 abstain"
    link = row["link"]
    assert link.startswith(f"document?doc={doc}&version={version_id}&section=")
    # the link opens that section of that version on the document page
    section_id = link.rsplit("=", 1)[1]
    at2 = app(path, "viewer")
    at2.query_params.update({"doc": str(doc), "version": str(version_id), "section": section_id})
    open_page(at2, "document")
    assert at2.selectbox(key=K.DOCUMENT_SECTION).value == int(section_id)
    assert at2.text[0].value.startswith("TOP 3: Wasserpreise")
    assert any(b.label == "CSV" for b in at.get("download_button"))


def test_summary_compare_and_downloads(app, data):
    path, doc, _, _ = data
    at = app(path, "viewer")
    at.query_params["doc"] = str(doc)
    open_page(at, "analysis")
    tabs = [t.label for t in at.tabs]
    assert tabs[:3] == ["Decisions (4)", "Actions and open points (5)", "Deadlines (9)"]
    assert tabs[-3:] == ["Summary", "Compare", "Cross-references"]
    # only the open tab is rendered (the others were data grids the browser drew hidden)
    assert len(at.dataframe) == 1 and not at.expander
    at.session_state[K.ANALYSIS_TAB] = "Summary"
    at.run()
    sources = [d.value for d in at.dataframe if "sentence" in d.value.columns][0]
    assert len(sources) == 7 and sources["section"].str.len().min() > 0
    at.session_state[K.ANALYSIS_TAB] = "Compare"
    at.run()
    changed = [e.label for e in at.expander]
    assert "changed: TOP 3\\: Wasserpreise ab 1\\. Januar 2025" in changed
    assert any(lbl.startswith("added: Anlage 3") for lbl in changed)
    names = {b.proto.label for b in at.get("download_button")}
    assert {"CSV", "JSON"} <= names
    at.selectbox(key=K.ANALYSIS_VERSION).select(1).run()  # version 1: compare with 2
    assert not at.exception and at.tabs[0].label == "Decisions (4)"


def test_document_text_is_escaped_on_the_analysis_page(app, data):
    path, _, _, xss = data
    at = app(path, "viewer")
    at.query_params["doc"] = str(xss)
    open_page(at, "analysis")
    assert not at.exception
    for label in [t.label for t in at.tabs]:  # each tab is rendered when it is open
        at.session_state[K.ANALYSIS_TAB] = label
        at.run()
        assert not at.exception
        for el in list(at.markdown) + list(at.caption) + list(at.expander) + list(at.warning):
            raw = getattr(el.proto, "body", None) or getattr(el, "label", "") or el.value
            assert "<script" not in raw or "\\<script" in raw, raw


def test_the_document_page_links_to_the_analysis(app, data):
    path, doc, _, _ = data
    at = app(path, "viewer")
    at.query_params["doc"] = str(doc)
    open_page(at, "document")
    links = at.get("page_link")
    assert any("analysis" in (link.proto.page or "") for link in links)
