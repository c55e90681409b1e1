"""Evaluation: pick a goldenset and retrieval configurations, run them with progress; metric
tables and charts (bars per configuration, per-query heatmap, history of runs), from a query to
its retrieval trace on the query-debug page, two runs compared with significance tests; the
goldenset editor (add and edit questions, mark relevant documents from search results);
rated answers (thumbs up/down from the chat and chatbots) turned into goldenset questions.
Viewers see results; running and editing need the editor role."""
import plotly.express as px
import plotly.graph_objects as go
import streamlit as st
from streamlit.errors import StreamlitAPIException

from backend.security import auth
from eval import jobs as eval_jobs
from eval import service, views
from eval import ui_keys as E
from eval.compare import compare_runs
from eval.configs import load_configs
from eval.judge import LLM_PROVIDERS
from eval.runner import DEFAULT_METRICS
from eval.store import get_goldenset, get_run, list_goldensets
from pages._jobs import follow, show_outcome
from pages._jobs import start as start_job
from backend.security.safe_markdown import md_link
from pages._eval_feedback import render as rated_answers
from pages._common import (
    current_scope,
    get_rs,
    md_escape,
    plain_label,
    require_page,
    show_errors,
)

HEATMAP_ROWS = 150

user = require_page("viewer")
E.init(st.session_state)
rs = get_rs()
scope = current_scope()  # runs, goldensets and retrieval within what this user may read
can_edit = auth.has_role(user.role, "editor")
st.title("Evaluation")

if st.session_state[E.EVAL_FLASH]:
    st.success(md_escape(st.session_state[E.EVAL_FLASH]))
    st.session_state[E.EVAL_FLASH] = None

# ---- a run in the background: live progress, then land on its results -----------------------

landed = follow(eval_jobs.latest(rs))
land_on_results = landed is not None and show_outcome(landed, landed.result.get("summary", ""))
if land_on_results:
    st.session_state[E.EVAL_TAB] = "Results"
    st.session_state[E.EVAL_GOLDENSET] = landed.result.get("goldenset")
    st.session_state[E.EVAL_BATCH] = landed.result.get("batch")
    st.session_state[E.EVAL_LAST] = {"warnings": landed.result.get("warnings", []),
                                     "notes": landed.result.get("notes", [])}

# ---- goldenset ----------------------------------------------------------------------------

stored = {g.name: g for g in list_goldensets(rs, scope=scope)}
bundled = {p.name: p for p in service.bundled_goldensets()}
with st.expander("Load a bundled goldenset", expanded=not stored):
    if not can_edit:
        st.caption("Loading goldensets needs the editor role.")
    elif bundled:
        c1, c2 = st.columns([3, 1])
        pick = c1.selectbox("File", list(bundled), key=E.EVAL_BUNDLED)
        if c2.button("Load", key=E.EVAL_IMPORT, icon=":material/download:"):
            gs = show_errors(lambda: service.import_bundled(rs, bundled[pick]))
            if gs is not None:
                st.session_state[E.EVAL_GOLDENSET] = gs.name
                st.session_state[E.EVAL_FLASH] = f"Loaded goldenset {gs.name} " \
                                                 f"({len(gs.queries)} questions)."
                st.rerun()
    st.caption("BEIR datasets: `python -m eval import-beir DIR` (see docs/evaluation.md).")
if not stored:
    st.info("No goldenset stored yet.")
    st.subheader("Rated answers", anchor=False)
    rated_answers(rs, can_edit=can_edit, goldensets=[], is_admin=user.role == "admin")
    st.stop()
if st.session_state.get(E.EVAL_GOLDENSET) not in stored:
    st.session_state[E.EVAL_GOLDENSET] = next(iter(stored))
name = st.selectbox("Goldenset", list(stored), key=E.EVAL_GOLDENSET, format_func=lambda n: (
    f"{n} · {stored[n].n_queries} questions · {stored[n].doc_key}"
    + (f" · collection {stored[n].collection}" if stored[n].collection else "")))
gs = get_goldenset(rs, name, scope=scope)
configs = load_configs()

run_tab, res_tab, hist_tab, cmp_tab, edit_tab, rated_tab = st.tabs(
    ["Run", "Results", "History", "Compare runs", "Goldenset editor", "Rated answers"],
    key=E.EVAL_TAB, on_change="rerun")  # tracked: landing on a finished run selects "Results"
with rated_tab:  # answers rated in the chat and chatbots -> goldenset questions
    rated_answers(rs, can_edit=can_edit, goldensets=list(stored),
                  is_admin=user.role == "admin")

# ---- run ----------------------------------------------------------------------------------

with run_tab:
    chosen = st.multiselect("Configurations", list(configs), key=E.EVAL_CONFIGS, help="; ".join(
        f"{md_escape(n)}: {md_escape(c.description)}" for n, c in configs.items()))
    metrics = st.multiselect("IR metrics", sorted(set(DEFAULT_METRICS) | {
        "hit@3", "recall@20", "precision@5", "mrr@20", "ndcg@5", "ndcg@20", "map@10"}),
        default=DEFAULT_METRICS, key=E.EVAL_METRICS)
    c1, c2, c3 = st.columns(3)
    judge = c1.selectbox("LLM judge (faithfulness, answer relevancy)",
                         ["none", *LLM_PROVIDERS], key=E.EVAL_JUDGE,
                         help="Needs a configured provider; 'none' skips the LLM-judged metrics.")
    traces = c2.checkbox("Store retrieval traces", key=E.EVAL_TRACES,
                         help="One trace per query, opened from the results on Query debug.")
    label = c3.text_input("Label (optional)", key=E.EVAL_LABEL, max_chars=200)
    st.caption("RAGAS context precision, recall and string similarity are computed for every "
               "question with reference contexts. The run goes on in the background (one at a "
               "time): its progress shows above, and the page lands on its results when it is "
               "done. Also `python -m eval run`.")
    go_run = st.button("Run evaluation", type="primary", key=E.EVAL_RUN,
                       disabled=not can_edit or not chosen, icon=":material/play_arrow:")
    if not can_edit:
        st.caption("Running evaluations needs the editor role.")
    if go_run and can_edit:
        start_job(lambda: eval_jobs.start_eval(
            rs, gs, chosen, scope=scope, by=user.username, metrics=metrics or None,
            traces=traces, judge=None if judge == "none" else judge, label=label))
    last = st.session_state[E.EVAL_LAST]
    if last:
        for n in last["notes"]:
            st.info(md_escape(n))
        if last["warnings"]:
            with st.expander(f"{len(last['warnings'])} goldenset warnings", expanded=True):
                for w in last["warnings"][:200]:
                    st.warning(md_escape(w))

# ---- results ------------------------------------------------------------------------------

with res_tab:
    choices = dict(views.batches(rs, name, scope=scope))
    if not choices:
        st.info("No runs of this goldenset yet.")
    else:
        if st.session_state.get(E.EVAL_BATCH) not in choices:
            st.session_state[E.EVAL_BATCH] = next(iter(choices))
        bid = st.selectbox("Evaluation", list(choices), key=E.EVAL_BATCH,
                           format_func=lambda b: choices[b])
        batch = views.load_batch(rs, name, bid, scope=scope)
        st.dataframe(views.metrics_table(batch), hide_index=True)
        fig = px.bar(views.long_metrics(batch), x="metric", y="value", color="configuration",
                     barmode="group", range_y=[0, 1], height=380)
        st.plotly_chart(fig)
        mnames = views.metric_names(batch)
        hm = st.selectbox("Per-query heatmap of", mnames, key=E.EVAL_HEAT_METRIC,
                          index=mnames.index("ndcg@10") if "ndcg@10" in mnames else 0)
        qids, cfgs, z = views.heatmap(batch, hm)
        if len(qids) > HEATMAP_ROWS:
            st.caption(f"The {HEATMAP_ROWS} weakest of {len(qids)} queries.")
            qids, z = qids[:HEATMAP_ROWS], z[:HEATMAP_ROWS]
        questions = {q: r.question for run in batch.runs for q, r in run.results.items()}
        heat = go.Figure(go.Heatmap(
            z=z, x=cfgs, y=qids, zmin=0, zmax=1, colorscale="RdYlGn",
            text=[[plain_label(questions.get(q, ""), 90)] * len(cfgs) for q in qids],
            hovertemplate="%{y} · %{x}: %{z:.3f}<br>%{text}<extra></extra>"))
        heat.update_layout(height=max(300, 16 * len(qids) + 80), yaxis={"autorange": "reversed"})
        st.plotly_chart(heat)
        by_cfg = {r.info.config_name: r for r in batch.runs}
        cfg = st.selectbox("Queries of", list(by_cfg), key=E.EVAL_QUERY_CONFIG)
        run = by_cfg[cfg]
        st.dataframe(views.query_rows(run, mnames), hide_index=True, column_config={
            "trace": st.column_config.LinkColumn("trace", display_text="open trace")})
        qid = st.selectbox("Query", list(run.results), key=E.EVAL_QUERY,
                           format_func=lambda q: f"{q} · {run.results[q].question[:90]}")
        r = run.results[qid]
        c1, c2 = st.columns(2)
        c1.markdown("**Ranking** (relevant marked ✓)")
        c1.dataframe([{"rank": i, "document": d, "relevant": "✓ " + str(r.relevant[d])
                       if d in r.relevant else ""} for i, (d, _) in enumerate(r.ranking, 1)],
                     hide_index=True)
        c2.markdown("**Metrics**")
        c2.dataframe([{"metric": m, "value": v} for m, v in r.metrics.items()], hide_index=True)
        if r.trace_id:
            try:
                c2.page_link("pages/query_debug.py", label="Open this retrieval in Query debug",
                             icon=":material/troubleshoot:", query_params={"trace": r.trace_id})
            except StreamlitAPIException:  # the page runs outside app.py's navigation
                c2.markdown(md_link("Open this retrieval in Query debug",
                                    f"query_debug?trace={r.trace_id}"))
        else:
            c2.caption("No trace stored for this run.")

# ---- history ------------------------------------------------------------------------------

with hist_tab:
    rows = views.history_rows(rs, name, scope=scope)
    if not rows:
        st.info("No runs of this goldenset yet.")
    else:
        hist_metrics = list(dict.fromkeys(k for r in rows for k in r
                                          if k not in ("run", "created_at", "configuration",
                                                       "label")))
        hmet = st.selectbox("Metric", hist_metrics, key=E.EVAL_HISTORY_METRIC,
                            index=hist_metrics.index("ndcg@10") if "ndcg@10" in hist_metrics
                            else 0)
        pts = [r for r in rows if r.get(hmet) is not None]
        fig = px.line(pts, x="created_at", y=hmet, color="configuration", markers=True,
                      hover_data=["run", "label"], height=380)
        st.plotly_chart(fig)
        st.dataframe(rows[::-1], hide_index=True)

# ---- compare ------------------------------------------------------------------------------

with cmp_tab:
    runs = views.run_choices(rs, name, scope=scope)
    if len(runs) < 2:
        st.info("Two stored runs of this goldenset are needed.")
    else:
        ids = list(runs)
        c1, c2 = st.columns(2)
        a = c1.selectbox("Run A", ids, index=min(1, len(ids) - 1), key=E.EVAL_RUN_A,
                         format_func=runs.get)
        b = c2.selectbox("Run B", ids, index=0, key=E.EVAL_RUN_B, format_func=runs.get)
        cmp = compare_runs(get_run(rs, a, scope=scope), get_run(rs, b, scope=scope))
        for n in cmp.notes:
            st.warning(md_escape(n))
        st.dataframe(cmp.table(), hide_index=True)
        st.caption("B wins a query when B scores higher. Significance: Fisher's randomisation "
                   "test (and Student's paired t-test) over the queries both runs evaluated.")
        names = [m.metric for m in cmp.metrics]
        if names:
            dm = st.selectbox("Per-query difference of", names, key=E.EVAL_DETAIL_METRIC,
                              index=names.index("ndcg@10") if "ndcg@10" in names else 0)
            diffs = sorted(((row["query_id"], (row[dm][1] or 0) - (row[dm][0] or 0))
                            for row in cmp.per_query), key=lambda x: x[1])
            ties = sum(abs(d) < 1e-9 for _, d in diffs)
            diffs = [(q, d) for q, d in diffs if abs(d) >= 1e-9]
            st.caption(f"{len(diffs)} queries changed, {ties} unchanged (not shown).")
            fig = go.Figure(go.Bar(x=[d for _, d in diffs], y=[q for q, _ in diffs],
                                   orientation="h", marker_color=[
                                       "#2ca02c" if d > 0 else "#d62728" for _, d in diffs]))
            fig.update_layout(height=max(300, 14 * len(diffs) + 80),
                              xaxis_title=f"{dm}: B − A")
            st.plotly_chart(fig)

# ---- goldenset editor ---------------------------------------------------------------------


def _rel_rows(qid: str) -> list[dict]:
    key = f"{E.EVAL_EDIT_REL}.{name}.{qid}"
    if key not in st.session_state:
        q = next((x for x in gs.queries if x.id == qid), None)
        st.session_state[key] = [{"doc": r.doc, "grade": r.grade, "section": r.section or ""}
                                 for r in (q.relevant if q else [])]
    return st.session_state[key]


def _save(qid: str, new: bool, rows: list[dict], f: dict) -> bool:
    rel = [{"doc": str(r["doc"]).strip(), "grade": int(r.get("grade") or 1),
            **({"section": r["section"]} if r.get("section") else {})}
           for r in rows if r.get("doc") and str(r["doc"]).strip()]
    obj = {"id": f["id"].strip(), "question": f["question"], "language": f["language"],
           "tags": [t.strip() for t in f["tags"].split(",") if t.strip()], "relevant": rel,
           "reference_answer": f["answer"] or None,
           "reference_contexts": [c.strip() for c in f["contexts"].split("\n") if c.strip()]}
    q = service.put_question(rs, name, obj, old_id=None if new else qid)
    _forget(qid)
    st.session_state[E.EVAL_EDIT_NEXT] = q.id
    st.session_state[E.EVAL_FLASH] = f"Saved question {q.id}."
    return True


def _delete(qid: str) -> bool:
    service.delete_question(rs, name, qid)
    _forget(qid)
    st.session_state[E.EVAL_FLASH] = f"Deleted question {qid}."
    return True


def _forget(qid: str) -> None:
    """Drop the editor's widget state of a question (a new one starts empty again)."""
    for key in [x for x in st.session_state if isinstance(x, str) and (
            x.startswith(f"{E.EVAL_EDIT}.{name}.{qid}.")
            or x == f"{E.EVAL_EDIT_REL}.{name}.{qid}")]:
        del st.session_state[key]


with edit_tab:
    NEW = "__new__"
    ids = [q.id for q in gs.queries]
    if E.EVAL_EDIT_NEXT in st.session_state:
        st.session_state[E.EVAL_EDIT_QID] = st.session_state.pop(E.EVAL_EDIT_NEXT)
    if st.session_state.get(E.EVAL_EDIT_QID) not in ids + [NEW]:
        st.session_state[E.EVAL_EDIT_QID] = ids[0] if ids else NEW
    by_id = {q.id: q for q in gs.queries}
    qid = st.selectbox("Question", [NEW] + ids, key=E.EVAL_EDIT_QID, format_func=lambda i: (
        "➕ new question" if i == NEW else f"{i} · {by_id[i].question[:100]}"))
    new = qid == NEW
    q = by_id.get(qid)
    k = f"{E.EVAL_EDIT}.{name}.{qid}."
    st.caption(f"Relevant documents are named by "
               f"{'BEIR document id' if gs.doc_key == 'beir' else 'file name'}; "
               f"grade 2 = answers the question, 1 = related or partial.")
    f = {"id": st.text_input("Id", service.next_question_id(gs) if new else q.id, key=k + "id",
                             disabled=not can_edit),
         "question": st.text_area("Question", "" if new else q.question, key=k + "question",
                                  disabled=not can_edit, height=80)}
    c1, c2 = st.columns(2)
    f["language"] = c1.text_input("Language", "" if new else q.language, key=k + "language",
                                  disabled=not can_edit)
    f["tags"] = c2.text_input("Tags (comma-separated)", "" if new else ", ".join(q.tags),
                              key=k + "tags", disabled=not can_edit)
    f["answer"] = st.text_area("Reference answer", "" if new else q.reference_answer or "",
                               key=k + "answer", disabled=not can_edit, height=68)
    f["contexts"] = st.text_area("Reference contexts (one per line, copied from the documents)",
                                 "" if new else "\n".join(q.reference_contexts),
                                 key=k + "contexts", disabled=not can_edit, height=100)
    rows = _rel_rows(qid)
    st.markdown("**Relevant documents**")
    nonce = st.session_state[E.EVAL_EDIT_NONCE]
    edited = st.data_editor(
        rows, key=f"{k}rel.{nonce}", num_rows="dynamic" if can_edit else "fixed",
        disabled=not can_edit, column_config={
            "doc": st.column_config.TextColumn("document", required=True),
            "grade": st.column_config.NumberColumn("grade", min_value=0, max_value=3, step=1,
                                                   default=1),
            "section": st.column_config.TextColumn("section (optional)")})
    if can_edit:
        st.markdown("**Mark relevant documents from search results**")
        c1, c2 = st.columns([4, 1])
        text = c1.text_input("Search", f["question"], key=f"{E.EVAL_SEARCH}.{name}.{qid}",
                             label_visibility="collapsed")
        if c2.button("Search", key=E.EVAL_SEARCH_GO, icon=":material/search:"):
            st.session_state[E.EVAL_SEARCH_HITS] = show_errors(
                lambda: service.search_documents(rs, gs, text, scope=scope)) or []
        hits = st.session_state[E.EVAL_SEARCH_HITS]
        if hits:
            st.dataframe([{"document": h.key, "title": h.title, "score": h.score,
                           "best passage": h.snippet} for h in hits], hide_index=True)
            c1, c2, c3 = st.columns([4, 1, 1])
            marked = c1.multiselect("Mark as relevant", [h.key for h in hits], key=E.EVAL_MARK)
            grade = c2.selectbox("Grade", [2, 1], key=E.EVAL_MARK_GRADE)
            if c3.button("Add", key=E.EVAL_MARK_ADD, disabled=not marked):
                have = {r["doc"] for r in edited if r.get("doc")}
                rows[:] = [r for r in edited if r.get("doc")] + [
                    {"doc": d, "grade": grade, "section": ""} for d in marked if d not in have]
                st.session_state[E.EVAL_EDIT_NONCE] += 1
                st.rerun()
        c1, c2 = st.columns(2)
        if c1.button("Save question", type="primary", key=E.EVAL_SAVE, icon=":material/save:"):
            if show_errors(lambda: _save(qid, new, edited, f)):
                st.rerun()
        if not new and c2.button("Delete question", key=E.EVAL_DELETE, icon=":material/delete:"):
            if show_errors(lambda: _delete(qid)):
                st.rerun()
    else:
        st.caption("Editing goldensets needs the editor role.")
    c1, c2 = st.columns(2)
    c1.download_button("Download YAML", gs.to_yaml(), f"{name}.yaml", "application/x-yaml")
    c2.download_button("Download JSONL", gs.to_jsonl(), f"{name}.jsonl", "application/jsonl")
