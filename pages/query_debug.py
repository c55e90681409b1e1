"""Query debugging: one query with every retrieval parameter; the final hits with score and
rank at every stage; vector and BM25 candidates side by side; highlighted terms; scores per
stage and a timing waterfall; past traces to reopen (?trace=ID); two configurations compared."""
import plotly.express as px
import plotly.graph_objects as go
import streamlit as st

from backend.security import auth
from backend.services import debug
from backend.errors import NotFound
from backend.retrieval import POLICIES, RetrievalParams
from backend.retrieval.compare import compare_results, shared_time_range
from backend.retrieval.report import (
    candidates_side_by_side,
    highlight_markdown,
    hits_rows,
    overlap_summary,
    rewrite_info,
    route_info,
    score_series,
    stage_line,
    stage_timings,
)
from backend.ui import citations as cites
from backend.ui import state as K
from backend.ui.tables import no_none
from pages._common import (
    safe_text,
    current_actor,
    current_scope,
    get_rs,
    md_escape,
    plain_label,
    require_page,
    show_errors,
)

user = require_page("viewer")
rs = get_rs()
# Traces: each user sees their own, admins everyone's (backend/retrieval/traces.py); what a
# trace shows is limited to the collections the user may read now (backend/services/debug.py).
is_admin = auth.has_role(user.role, "admin")
actor = current_actor()
st.title("Query debug")

trace_id = st.query_params.get("trace")
if trace_id and (st.session_state.get(K.DEBUG_RESULT_A) or {}).get("trace", {}).get("id") != trace_id:
    try:
        loaded = debug.load_trace(rs, trace_id, actor=actor)
        st.session_state[K.DEBUG_RESULT_A], st.session_state[K.DEBUG_RESULT_B] = loaded, None
    except NotFound as e:  # none with that id, or another user's: the same message
        st.error(md_escape(str(e)))
asked = st.query_params.get("q")  # a chat's trace link: its question, to rerun it
if trace_id and asked and not st.session_state.get(K.DEBUG_QUERY):  # (every run until the
    st.session_state[K.DEBUG_QUERY] = asked[:10000]  # first search: a rerun cannot lose it)

choices = debug.filter_choices(rs, scope=current_scope())


ANCHOR_DEFAULT = RetrievalParams.model_fields["anchor_boost"].default


def _param_form(col, letter: str) -> dict:
    key = f"{K.DEBUG_PARAM}.{letter}."
    with col:
        st.markdown(f"**Configuration {md_escape(letter)}**")
        policy = st.selectbox("Policy", POLICIES, key=key + "policy")
        c1, c2 = st.columns(2)
        k = c1.number_input("k (hits)", 1, 100, 10, key=key + "k")
        cand = c2.number_input("Candidates per retriever", 1, 500, 50, key=key + "candidates")
        fusion = c1.selectbox("Fusion", ["weighted", "rrf"], key=key + "fusion")
        rrf_k = c2.number_input("RRF k", 0, 1000, 60, key=key + "rrf_k")
        auto = c1.checkbox("Weights by query language", True, key=key + "auto_w")
        vw = c2.slider("Vector weight", 0.0, 1.0, 0.5, 0.05, key=key + "vw", disabled=auto)
        norm = c1.selectbox("Normalisation", ["max", "minmax"], key=key + "norm")
        boost = c2.number_input("Exact-match boost", 0.0, 5.0, 0.15, 0.05, key=key + "boost")
        expand = c1.selectbox("Expansion", ["none", "neighbours", "section"], key=key + "expand")
        budget = c2.number_input("Expansion budget (chars)", 0, 20000, 2000, 250,
                                 key=key + "budget")
        anchor = c1.number_input("Anchor-word boost", 0.0, 5.0, ANCHOR_DEFAULT, 0.1,
                                 key=key + "anchor",
                                 help="a rare name of the query (one the dictionary does not "
                                      "know) lifts the passages of the documents naming it")
        cap = c2.number_input("Per-document cap (0 = none)", 0, 50, 0, key=key + "cap")
        min_score = c1.number_input("Minimum score (0 = none)", 0.0, 10.0, 0.0, 0.05,
                                    key=key + "min")
        cols = st.multiselect("Collections", choices["collections"], key=key + "collections")
        types = st.multiselect("Document types", choices["doc_types"], key=key + "doc_types")
        ftypes = st.multiselect("File types", choices["file_types"], key=key + "file_types")
        flags = st.columns(3)
        fuzzy = flags[0].checkbox("Fuzzy", key=key + "fuzzy")
        rerank = flags[1].checkbox("Rerank", key=key + "rerank")
        group = flags[2].checkbox("Group by document", key=key + "group")
    return {"policy": policy, "k": int(k), "candidates": int(cand), "fusion": fusion,
            "rrf_k": int(rrf_k), "vector_weight": None if auto else float(vw),
            "normalisation": norm, "exact_boost": float(boost), "anchor_boost": float(anchor),
            "expand": expand,
            "expand_chars": int(budget), "per_document_cap": int(cap) or None,
            "min_score": float(min_score) or None, "collections": cols or None,
            "doc_types": types or None, "file_types": ftypes or None, "fuzzy": fuzzy,
            "rerank": rerank, "group_by_document": group}


compare = st.toggle("Compare two configurations", key=K.DEBUG_COMPARE)
shown_before = bool(st.session_state.get(K.DEBUG_RESULT_A))
with st.form(K.DEBUG_FORM):  # compact once there are results: they come right below it
    q_col, b_col = st.columns([6, 1], vertical_alignment="bottom")
    query = q_col.text_input("Query", key=K.DEBUG_QUERY, max_chars=10000,
                             placeholder="e.g. Welchen Standardwert hat gateway.max_connections?")
    go_button = b_col.form_submit_button("Search", type="primary", icon=":material/search:",
                                         width="stretch")
    with st.expander("Parameters" + (" (A and B)" if compare else ""),
                     expanded=not shown_before, icon=":material/tune:"):
        cols = st.columns(2 if compare else 1)
        params_a = _param_form(cols[0], "A")
        params_b = _param_form(cols[1], "B") if compare else None

if go_button:
    res_a = show_errors(lambda: debug.run_query(rs, query, params_a, actor=actor))
    res_b = show_errors(lambda: debug.run_query(rs, query, params_b, actor=actor)) \
        if compare else None
    st.session_state[K.DEBUG_RESULT_A], st.session_state[K.DEBUG_RESULT_B] = res_a, res_b
    if res_a:
        st.query_params["trace"] = res_a["trace"]["id"]
    st.query_params.pop("q", None)  # the query field holds what was searched now
    if res_a and not shown_before:  # the first results: again, with the parameters folded
        st.rerun()


def _render(result: dict, label: str, time_range: list[float], narrow: bool) -> None:
    """One result; `time_range`: the waterfall's x-axis, shared by both configurations;
    `narrow`: half the page (compare mode), the charts one below the other."""
    trace = result["trace"]
    labels = debug.chunk_labels(rs, result, scope=current_scope())
    st.caption(f"{md_escape(label)} · trace {md_escape(trace['id'])} · {trace['total_ms']:.1f} ms"
               f" · policy {md_escape(result['params']['policy'])} · language "
               f"{md_escape(result['language'] or '?')}")
    route = route_info(result)
    if route:  # a chat question: which route answered it and why (issue 12)
        line = f"Chat route: **{md_escape(route['route'])}**"
        if route["path"]:
            line += f" · path {md_escape(route['path'])}"
        if route["action"]:
            line += f" · intent {md_escape(route['action'])}"
        if route["url"]:
            line += f" · URL in the question: {md_escape(route['url'])}"
        line += f" · why: {md_escape(route['why'])}"
        if route["document_id"] is not None:
            line += (f" · document {md_escape(route['document_id'])}: "
                     f"{md_escape(route['document_why'] or '')}")
        st.info(line, icon=":material/alt_route:")
    rewrite = rewrite_info(result)
    if rewrite:  # a follow-up retrieved with a query rewritten from the conversation
        st.info(f"Follow-up retrieved as: **{md_escape(rewrite['query'])}** · why: "
                f"{md_escape(rewrite['why'])}", icon=":material/forum:")
    if result["mode"] == "analysis":
        st.caption("Answered from the document analysis: the hits are the places the answer "
                   "cites (score: the item's confidence).")
    for w in result["warnings"]:
        st.warning(md_escape(w))
    if result["mode"] == "inventory":
        st.info("Inventory question: a document list instead of passages.")
        st.dataframe(no_none({"rank": d["rank"], "document": safe_text(d["title"]),
                              "file": safe_text(d["filename"]),
                              "type": d["doc_type"], "score": round(d["score"], 4)}
                             for d in result["documents"]), hide_index=True)
    cited = cites.cited_in_trace(rs, trace["id"], current_scope(), result["hits"])
    if cited:  # the chat answer of this trace: which sources it cited
        st.markdown("**Cited in the answer:**  \n" + "  \n".join(
            f"\\[{c['n']:d}\\] {md_escape(safe_text(c['title']))}"
            + (f" › {md_escape(c['section'])}" if c["section"] else "")
            + (f" · p. {int(c['page']):d}" if c["page"] is not None else "")
            + (f" · hit #{int(c['rank']):d}" if c["rank"] is not None else "")
            for c in cited))
    rows = hits_rows(result, labels)
    if not rows and result["mode"] != "inventory":
        st.info("No hits.")
        return
    st.subheader("Final hits", anchor=False)
    st.dataframe(no_none(rows), hide_index=True,
                 column_config={"passage": st.column_config.Column(width="large")})
    cited_n = {c["chunk_id"]: c["n"] for c in cited if c["chunk_id"]}
    for h in result["hits"][:10]:
        mark = f"cited \\[{int(cited_n[h['chunk_id']]):d}\\] · " if h.get("chunk_id") in cited_n \
            else ""
        with st.expander(f"#{h['rank']:d} · {mark}{h['score']:.3f} · "
                         f"{md_escape(safe_text(h['document_title'] or h['filename']))} "
                         f"› {md_escape(h.get('breadcrumb') or '-')}"
                         + (f" · p. {md_escape(h['page'])}" if h["page"] else "")):
            st.markdown(stage_line(h))
            if h.get("deleted"):
                st.caption("The document was deleted; its text is no longer kept here.")
            for snip in h["highlights"][:3]:
                st.markdown(highlight_markdown(snip))
            st.text(h["text"])

    st.subheader("Candidates: vector vs BM25", anchor=False)
    side = candidates_side_by_side(result, labels)
    st.write(" · ".join(f"{md_escape(k)}: **{v:d}**" for k, v in overlap_summary(result).items()))
    st.dataframe(no_none(side), hide_index=True,
                 column_config={"passage": st.column_config.Column(width="large")})

    c1, c2 = (st.container(), st.container()) if narrow else st.columns(2)
    series = score_series(result)
    if series:  # chart titles as captions: a plotly title was cut off in a narrow column
        c1.markdown("**Scores per stage** (normalised to the stage's maximum)")
        fig = px.bar(series, x="hit", y="score", color="stage", barmode="group",
                     hover_data=["raw"])
        fig.update_layout(margin=dict(t=10, l=10, r=10, b=10), height=320)
        c1.plotly_chart(fig, key=f"scores.{label}")
    timings = stage_timings(result)
    c2.markdown("**Timing waterfall** (ms" + (", same scale for A and B)" if narrow else ")"))
    fig = go.Figure(go.Bar(
        y=[plain_label(t["stage"]) for t in timings], x=[t["ms"] for t in timings],
        base=[t["start_ms"] for t in timings], orientation="h",
        marker_color=["crimson" if t["error"] else "steelblue" for t in timings]))
    fig.update_layout(yaxis={"autorange": "reversed"}, xaxis={"range": time_range},
                      margin=dict(t=10, l=10, r=10, b=10), height=320)
    c2.plotly_chart(fig, key=f"timing.{label}")
    with st.expander("Trace stages (parameters, candidates, errors)"):
        for s in trace["stages"]:
            st.markdown(f"**{md_escape(s['name'])}** · {s['ms']:.2f} ms"
                        + (f" · :red[error: {md_escape(s['error'])}]" if s["error"] else "")
                        + (f" · {md_escape(s['note'])}" if s.get("note") else ""))
            st.json(s["params"], expanded=False)


def _compare_summary(a: dict, b: dict) -> None:
    """How far A and B agree: overlap@k and the hits that moved, came or went."""
    scope = current_scope()
    labels = {**debug.chunk_labels(rs, a, scope=scope), **debug.chunk_labels(rs, b, scope=scope)}
    cmp = compare_results(a, b, max(a["params"]["k"], b["params"]["k"]), labels)
    n = cmp["counts"]
    st.subheader("A vs B", anchor=False)
    st.markdown(f"**overlap@{cmp['k']:d}: {cmp['overlap']:.0%}** ({cmp['shared']:d} of "
                f"{cmp['k']:d} hits in both) · moved up {n['up']:d} · down {n['down']:d} · "
                f"same rank {n['same']:d} · new in B {n['new']:d} · dropped from A "
                f"{n['dropped']:d}")
    if cmp["rows"]:
        st.dataframe(no_none(cmp["rows"]), hide_index=True,
                     column_config={"passage": st.column_config.Column(width="large")})


res_a = st.session_state.get(K.DEBUG_RESULT_A)
res_b = st.session_state.get(K.DEBUG_RESULT_B)
span = shared_time_range(res_a, res_b)
if res_a and res_b:
    _compare_summary(res_a, res_b)
    left, right = st.columns(2)
    with left:
        _render(res_a, "A", span, narrow=True)
    with right:
        _render(res_b, "B", span, narrow=True)
elif res_a:
    _render(res_a, "A", span, narrow=False)

with st.expander("Past traces"):
    past = debug.past_traces(rs, actor=actor)
    if not past:
        st.caption("No stored traces yet.")
    else:
        options = {t["id"]: t for t in past}
        pick = st.selectbox("Reopen a trace", list(options), key=K.DEBUG_PAST,
                            format_func=lambda i: f"{options[i]['at']:%Y-%m-%d %H:%M:%S} · "
                            f"{options[i]['policy']} · {options[i]['query'][:80]}"
                            + (f" · {options[i]['owner']}" if is_admin else ""))
        if st.button("Open", key=K.DEBUG_PAST + ".open"):
            st.query_params["trace"] = pick
            st.session_state[K.DEBUG_RESULT_A] = show_errors(
                lambda: debug.load_trace(rs, pick, actor=actor))
            st.session_state[K.DEBUG_RESULT_B] = None
            st.rerun()


