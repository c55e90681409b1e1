"""AppTest for the query-debug page: a query shows hits with every stage's scores, the
candidate comparison and the charts; a stored trace reopens via ?trace=ID; two
configurations side by side; bad input shows an error, not a traceback; a viewer neither
lists nor opens another user's traces (an admin does)."""
from __future__ import annotations

from backend.ui import state as K
from tests.page_support import (  # noqa: F401  (fixtures)
    app,
    components,
    corpus,
    errors,
    fresh,
    open_page,
    shared_model,
)

P = K.DEBUG_PARAM + ".A."


def _search(at, query: str):
    at.text_input(key=K.DEBUG_QUERY).input(query)
    at.button[[b.label for b in at.button].index("Search")].click().run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def test_query_shows_stage_scores_candidates_and_charts(app, corpus):
    at = open_page(app(corpus[0], "viewer"), "query_debug")
    _search(at, "Failover des Gateways")
    res = at.session_state[K.DEBUG_RESULT_A]
    assert res["hits"]
    frames = [df.value for df in at.dataframe]
    hits = frames[0]
    for col in ("vector", "vector rank", "bm25", "bm25 rank", "fused", "fused rank", "rank"):
        assert col in hits.columns
    side = frames[1]
    assert {"vector rank", "bm25 rank", "fused rank", "final rank", "found by"} <= set(side.columns)
    assert len(at.get("plotly_chart")) == 2
    trace_id = res["trace"]["id"]
    assert at.query_params["trace"] == [trace_id] or at.query_params["trace"] == trace_id

    # the trace was stored and reopens from the URL in a new session
    again = app(corpus[0], "viewer")
    again.query_params["trace"] = trace_id
    open_page(again, "query_debug")
    assert again.session_state[K.DEBUG_RESULT_A]["trace"]["id"] == trace_id
    assert again.dataframe


def test_two_configurations_side_by_side(app, corpus):
    at = open_page(app(corpus[0], "viewer"), "query_debug")
    at.toggle(key=K.DEBUG_COMPARE).set_value(True).run()
    at.selectbox(key=P + "policy").set_value("lexical_only")
    at.selectbox(key=K.DEBUG_PARAM + ".B.policy").set_value("semantic_only")
    _search(at, "customer portal password")
    a, b = at.session_state[K.DEBUG_RESULT_A], at.session_state[K.DEBUG_RESULT_B]
    assert a["params"]["policy"] == "lexical_only" and b["params"]["policy"] == "semantic_only"
    assert all(h["vector_score"] is None for h in a["hits"])
    assert all(h["keyword_score"] is None for h in b["hits"])


def test_bad_input_is_an_error_not_a_traceback(app, corpus):
    at = open_page(app(corpus[0], "viewer"), "query_debug")
    _search(at, 'AND OR NOT ( ) : " * ~ ^ \\ / [ ] { } !')
    at.multiselect(key=P + "collections").set_value(["samples"])
    _search(at, "")
    assert any("empty query" in w.value for w in at.warning)
    again = app(corpus[0], "viewer")
    again.query_params["trace"] = "no-such-trace"
    open_page(again, "query_debug")
    assert any("No stored trace" in e for e in errors(again))


def test_page_run_directly_without_sign_in_shows_only_an_error(monkeypatch, corpus, shared_model):
    """A crafted URL straight to the page file, without signing in."""
    from streamlit.testing.v1 import AppTest

    from tests.page_support import ROOT

    monkeypatch.setenv("RAGSCOPE_DATA_DIR", str(corpus[0]))
    at = AppTest.from_file(str(ROOT / "pages" / "query_debug.py"), default_timeout=60)
    at.run()
    assert not at.exception
    assert any("sign in" in e.lower() for e in errors(at))
    assert not at.dataframe and not at.text_input


def test_a_viewer_cannot_list_or_open_another_users_trace(app, corpus):
    from backend.security import auth

    users = auth.UserStore(auth.AuthPaths.under(corpus[0]), bcrypt_rounds=4)
    if users.get("viewer2") is None:
        users.add("viewer2", "viewer", password="viewer2-password-1")
    question = "Gateway failover question asked by viewer2"
    b = open_page(app(corpus[0], "viewer2"), "query_debug")
    _search(b, question)
    b_trace = b.session_state[K.DEBUG_RESULT_A]["trace"]["id"]

    def past_labels(at) -> list[str]:
        boxes = [x for x in at.selectbox if x.key == K.DEBUG_PAST]
        return list(boxes[0].options) if boxes else []

    assert any(question in label for label in past_labels(b))

    a = app(corpus[0], "viewer")
    a.query_params["trace"] = b_trace
    open_page(a, "query_debug")
    assert errors(a) == [f"No stored trace with id {b_trace}."]  # as if there were none
    assert a.session_state[K.DEBUG_RESULT_A] is None and not a.dataframe
    assert not any(question in label for label in past_labels(a))

    admin = app(corpus[0], "admin")
    admin.query_params["trace"] = b_trace
    open_page(admin, "query_debug")
    assert not errors(admin)
    assert admin.session_state[K.DEBUG_RESULT_A]["trace"]["id"] == b_trace
    assert any(question in label and "viewer2" in label for label in past_labels(admin))


def test_urls_and_links_in_snippets_stay_text(app, fresh, shared_model):
    """Only the index's own <b> marks become formatting (issue 10, finding 15)."""
    from backend.config import Settings
    from backend.ingest.service import Ingestor
    from backend.services.container import Ragscope
    from tests.streamlit_markdown import hazards, rendered_text
    from tests.test_chat_pages import HOSTILE_TXT

    data = fresh[0]
    rs = Ragscope(Settings(data_dir=data))
    rs.embedder = shared_model
    assert Ingestor(rs).ingest_bytes(HOSTILE_TXT, "pump_links.txt").ok
    rs.close()
    at = open_page(app(data, "viewer"), "query_debug")
    _search(at, "pump vendor")
    snippets = [m for m in at.markdown if ":orange-background[" in m.value]
    shown = " ".join(rendered_text(m.value) for m in snippets)
    assert "http://evil.example/" in shown and "www.evil.example" in shown, shown
    assert ":material/home:" in shown and "<img src=x" in shown, shown
    for m in at.markdown:  # highlights, stage lines, headings of this page
        assert hazards(m.value, allowed_directives=frozenset({"orange-background"})) == [], \
            m.value
