"""Issue 23 item 6 through AppTest, where a user meets it: Query debug's compare mode
summarises A vs B (overlap@k, moved up/down/new/dropped) and draws both waterfalls on one
scale, its charts carry no plotly title that a narrow column cuts off, and candidates are
named by title · section · page rather than hex ids; the document page shows its metadata
as a field/value table and its facts uncut; no table cell on any page reads "None", and no
page logs a Streamlit deprecation warning."""
from __future__ import annotations

import json
import re

import pytest

from backend.ui import state as K
from tests.page_support import app, components, corpus, open_page, shared_model  # noqa: F401
from tests.test_query_debug_page import _search

HEX_ID = re.compile(r"^[0-9a-f]{12}$")


def _none_cells(at) -> list[tuple[int, str]]:
    """(table number, column) of every cell that Streamlit's grid would print as "None"."""
    out = []
    for i, df in enumerate(at.dataframe):
        frame = df.value
        for col in frame.columns:
            if frame[col].isna().any() or (frame[col].astype(str) == "None").any():
                out.append((i, col))
    return out


def _figures(at) -> list[dict]:
    return [json.loads(c.proto.spec) for c in at.get("plotly_chart")]


def test_compare_mode_summarises_and_shares_the_time_axis(app, corpus):
    at = open_page(app(corpus[0], "viewer"), "query_debug")
    at.toggle(key=K.DEBUG_COMPARE).set_value(True).run()
    at.selectbox(key=K.DEBUG_PARAM + ".A.policy").set_value("lexical_only")
    at.selectbox(key=K.DEBUG_PARAM + ".B.policy").set_value("semantic_only")
    _search(at, "gateway failover")
    summary = [m.value for m in at.markdown if "overlap@" in m.value]
    assert summary and re.search(r"overlap@10: \d+%", summary[0]), summary
    assert all(w in summary[0] for w in ("moved up", "down", "new in B", "dropped from A"))
    table = next(d.value for d in at.dataframe if "change" in d.value.columns)
    assert set(table["change"]) <= {"up", "down", "same", "new", "dropped"} and len(table)
    assert not any(HEX_ID.match(p) for p in table["passage"])
    figs = _figures(at)
    ranges = [f["layout"]["xaxis"]["range"] for f in figs if f["data"][0].get("orientation") == "h"]
    assert len(ranges) == 2 and ranges[0] == ranges[1]  # both waterfalls on one scale
    assert not any((f["layout"].get("title") or {}).get("text") for f in figs)
    assert not _none_cells(at), _none_cells(at)


def test_results_come_first_and_candidates_are_named(app, corpus):
    at = open_page(app(corpus[0], "viewer"), "query_debug")
    _search(at, "Failover des Gateways")
    assert at.expander[0].label.startswith("Parameters") and not at.expander[0].proto.expanded
    side = next(d.value for d in at.dataframe if "found by" in d.value.columns)
    assert "chunk" not in side.columns and not any(HEX_ID.match(p) for p in side["passage"])
    assert any("Gateway" in p or "gateway" in p for p in side["passage"])
    hits = at.dataframe[0].value
    assert "chunk" not in hits.columns
    assert not _none_cells(at), _none_cells(at)


def test_document_metadata_is_a_field_value_table(app, corpus):
    at = app(corpus[0], "viewer")
    at.query_params["doc"] = str(corpus[1]["runbook_gateway_failover.md"])
    open_page(at, "document")
    assert not at.json, "metadata as raw JSON"
    assert not any(list(d.value.columns) == ["field", "value"] for d in at.dataframe)
    at.session_state[K.DOCUMENT_META] = True  # the expander's table is sent when it opens
    at.run()
    meta = next(d.value for d in at.dataframe if list(d.value.columns) == ["field", "value"])
    fields = dict(zip(meta["field"], meta["value"]))
    assert fields["file name"] == "runbook_gateway_failover.md"
    assert fields["collections"] == "samples"
    assert not at.metric  # st.metric cut long values ("meeting_mi…"): wrapping text now
    labels = [c.value for c in at.caption]
    assert {"Status", "Type", "Format", "Versions"} <= set(labels)
    assert "structure" in " ".join(str(p.proto) for p in at.get("page_link"))


@pytest.mark.parametrize("page", ["explorer", "document", "structure", "home", "costs",
                                  "evaluation", "analysis", "admin_access", "admin_tokens",
                                  "admin_users", "document_types", "settings", "crawl",
                                  "chatbot_builder", "upload", "query_debug", "chat",
                                  "profiles"])
def test_no_table_cell_reads_none_and_no_deprecation_is_logged(app, corpus, page, monkeypatch):
    from tests.test_page_warnings import _deprecations

    logged = _deprecations(monkeypatch)
    at = app(corpus[0], "admin")
    if page in ("document", "structure", "analysis"):
        at.query_params["doc"] = str(corpus[1]["runbook_gateway_failover.md"])
    open_page(at, page)
    if page == "query_debug":
        _search(at, "gateway failover")
    elif page == "chat":
        at.chat_input(key="chat.input").set_value("How does the gateway fail over?").run()
    assert not at.exception, [e.value for e in at.exception]
    assert not _none_cells(at), _none_cells(at)
    for key, value in _folded(at, page):  # tables sent only when their tab or expander opens
        at.session_state[key] = value
        at.run()
        assert not at.exception and not _none_cells(at), (key, value, _none_cells(at))
    assert logged == [], logged


def _folded(at, page: str) -> list[tuple[str, object]]:
    """(session key, value) that open each tab or expander of the page rendered only when
    open."""
    if page == "document":
        return [(K.DOCUMENT_META, True), (K.DOCUMENT_SIGNALS, True), (K.DOCUMENT_TAB, "Chunks")]
    if page == "analysis":
        return [(K.ANALYSIS_TAB, t.label) for t in at.tabs]
    return []
