"""Analysis: what a document decides, assigns and requires. One tab per extractor (tables with
a link to the section), a summary with its sources, a comparison (version diff side by side,
or another document) and cross-references. Every result can be downloaded as CSV and JSON.
Everything is read within the signed-in user's scope (a document outside it is not found;
comparisons and cross-references offer and find only documents in it)."""
import json

import streamlit as st

from backend.services import documents as docs
from backend.analysis import export, views
from backend.analysis.compare import compare_documents, compare_versions
from backend.analysis.extractors import EXTRACTORS
from backend.analysis.service import analyze_document, sections_of
from backend.analysis.summaries import summarize_document, summarize_section
from backend.analysis.xref import cross_reference
from backend.errors import RagscopeError
from backend.ui import state as K
from backend.ui.tables import no_none
from pages._common import (
    safe_text,
    cached_documents,
    current_scope,
    data_key,
    get_rs,
    md_escape,
    pick_document,
    require_page,
)

user = require_page("viewer")
rs = get_rs()
scope = current_scope()
st.title("Analysis")

doc_id = pick_document(K.ANALYSIS_PICK)
if doc_id is None:
    st.stop()
try:
    detail = docs.document_detail(rs, doc_id, scope=scope)
except RagscopeError as e:
    st.error(md_escape(str(e)))
    st.stop()
indexed = [v for v in detail.versions if v.status == "indexed"]
if not indexed:
    st.warning(f"Document {doc_id:d} has no indexed version to analyse"
               + (f" (version {detail.versions[0].number:d}: {md_escape(detail.versions[0].error)})"
                  if detail.versions and detail.versions[0].error else "."))
    st.stop()
numbers = {v.number: v for v in indexed}
if st.session_state.get(K.ANALYSIS_VERSION) not in numbers:
    active = next((v.number for v in indexed if v.is_active), indexed[0].number)
    st.session_state[K.ANALYSIS_VERSION] = active
number = st.selectbox("Version", list(numbers), key=K.ANALYSIS_VERSION,
                      format_func=lambda n: f"version {n}" + (" (active)" if numbers[n].is_active
                                                              else ""))
version = numbers[number]
st.page_link("pages/document.py", label="Open the document", icon=":material/description:",
             query_params={"doc": str(doc_id)})


def _downloads(what: str, csv_text: str, json_text: str) -> None:
    c1, c2, _ = st.columns([1, 1, 4])
    c1.download_button("CSV", csv_text, f"{what}.csv", "text/csv", icon=":material/download:",
                       key=f"{K.ANALYSIS_DOWNLOAD}.{what}.csv")
    c2.download_button("JSON", json_text, f"{what}.json", "application/json",
                       icon=":material/download:", key=f"{K.ANALYSIS_DOWNLOAD}.{what}.json")


LINK = {"link": st.column_config.LinkColumn("section link", display_text="open section"),
        "confidence": st.column_config.NumberColumn("confidence", format="%.2f")}

try:
    with st.spinner("Analysing…"):
        analysis = analyze_document(rs, doc_id, version=number, scope=scope)
except RagscopeError as e:
    st.error(md_escape(str(e)))
    st.stop()
ref = analysis.document
st.caption(f"{ref.sections:d} sections · {ref.chars:,} characters · language "
           f"{md_escape(ref.language or '-')} · document date {md_escape(str(ref.doc_date or 'unknown'))}")
for w in analysis.warnings:
    st.warning(md_escape(w))

names = list(analysis.results)
labels = [f"{md_escape(EXTRACTORS[n].label)} ({analysis.results[n].total:d})" for n in names]
# Only the open tab is computed and sent (on_change="rerun", .open): every tab held a data
# grid the browser rendered even when hidden, and the summary and comparison were computed
# on every run (docs/dashboard.md, "Page load").
tabs = st.tabs(labels + ["Summary", "Compare", "Cross-references"], key=K.ANALYSIS_TAB,
               on_change="rerun")
base = f"doc{doc_id}_v{number}"
for tab, name in zip(tabs, names):
    if not tab.open:
        continue
    with tab:
        r = analysis.results[name]
        st.caption(md_escape(EXTRACTORS[name].description) + (" · from cache" if r.cached else ""))
        if not r.items:
            st.info(f"No {md_escape(EXTRACTORS[name].label.lower())} found in this version.")
            continue
        st.dataframe(no_none(views.item_rows(r, doc_id, version.id)), hide_index=True,
                     column_config=LINK)
        # the same links outside the (canvas) table, for keyboards and screen readers
        pick = st.selectbox("Open the section of", range(len(r.items)),
                            key=f"{K.ANALYSIS_OPEN}.{name}",
                            format_func=lambda n, items=r.items: views.item_label(items[n]))
        item = r.items[pick]
        st.page_link("pages/document.py", icon=":material/open_in_new:",
                     label=f"Open {md_escape(item.section[:80])} on the document page",
                     query_params=views.section_params(doc_id, version.id, item.section_id))
        _downloads(f"{base}_{name}", export.items_csv(r.items, EXTRACTORS[name].fields),
                   json.dumps(r.to_dict(), ensure_ascii=False, indent=2))

def _summary() -> None:
    sections = sections_of(rs, doc_id, number, scope=scope)
    options = [None] + [s.id for s in sections]
    labels_by_id = {s.id: s.label for s in sections}
    c1, c2 = st.columns([3, 1])
    if st.session_state.get(K.ANALYSIS_SUMMARY_SECTION) not in options:
        st.session_state[K.ANALYSIS_SUMMARY_SECTION] = None
    sec = c1.selectbox("Scope", options, key=K.ANALYSIS_SUMMARY_SECTION,
                       format_func=lambda i: "(whole document)" if i is None
                       else labels_by_id[i][:120])
    length = c2.radio("Length", ["short", "medium", "long"], key=K.ANALYSIS_LENGTH,
                      horizontal=True)
    try:
        summary = (summarize_section(rs, doc_id, sec, version=number, length=length,
                                     scope=scope) if sec
                   else summarize_document(rs, doc_id, version=number, length=length,
                                           scope=scope))
    except RagscopeError as e:
        st.error(md_escape(str(e)))
        summary = None
    if summary is not None:
        st.caption(f"{md_escape(summary.method)} · {summary.parts:d} part(s)")
        for w in summary.warnings:
            st.warning(md_escape(w))
        for n, s in enumerate(summary.sentences, 1):
            st.markdown(f"{md_escape(s.text)} **\\[{n:d}\\]**")
        st.dataframe(no_none(views.summary_rows(summary)), hide_index=True,
                     column_config=LINK)
        _downloads(f"{base}_summary", export.summary_csv(summary), export.to_json(summary))

def _compare() -> None:
    mode = st.radio("Compare with", ["versions", "another document"], key=K.ANALYSIS_COMPARE_MODE,
                    horizontal=True)
    if mode == "versions":
        others = [n for n in numbers if n != number]
        if not others:
            st.info("This document has only one indexed version.")
        else:
            if st.session_state.get(K.ANALYSIS_VERSION_A) not in others:
                st.session_state[K.ANALYSIS_VERSION_A] = max(
                    [n for n in others if n < number] or others)
            a = st.selectbox("Compare with version", others, key=K.ANALYSIS_VERSION_A)
            try:
                cmp = compare_versions(rs, doc_id, version_a=a, version_b=number, scope=scope)
            except RagscopeError as e:
                st.error(md_escape(str(e)))
                cmp = None
            if cmp is not None:
                c = cmp.counts()
                st.caption(f"version {a:d} → {number:d}: {c['added']:d} added, {c['removed']:d} removed, "
                           f"{c['changed']:d} changed, {c['unchanged']:d} unchanged sections")
                for ch in cmp.sections:
                    if ch.status == "unchanged":
                        continue
                    with st.expander(f"{md_escape(ch.status)}: {md_escape(ch.heading)}", expanded=True):
                        left, right = views.diff_columns(ch)
                        ca, cb = st.columns(2)
                        ca.caption(f"version {a:d}")
                        cb.caption(f"version {number:d}")
                        ca.markdown(views.diff_markdown(left))
                        cb.markdown(views.diff_markdown(right))
                if cmp.items:
                    st.subheader("Changed items", anchor=False)
                    st.dataframe([{"status": i.status, "extractor": i.extractor,
                                   "section": i.section, f"version {a}": i.a.text if i.a else "",
                                   f"version {number}": i.b.text if i.b else ""}
                                  for i in cmp.items], hide_index=True)
                _downloads(f"{base}_compare_v{a}", export.version_comparison_csv(cmp),
                           json.dumps(export.version_comparison_dict(cmp), ensure_ascii=False,
                                      indent=2, default=str))
    else:
        recent = cached_documents(data_key(rs), scope, docs.ExplorerFilter(), 1, 100).rows
        choices = [r.id for r in recent if r.id != doc_id]
        titles = {r.id: safe_text(r.title or r.filename) for r in recent}
        other = st.selectbox("Other document", choices, key=K.ANALYSIS_OTHER_DOC,
                             format_func=lambda i: f"{i} · {titles.get(i, '')}"[:120])
        if other is not None:
            try:
                dc = compare_documents(rs, doc_id, other, scope=scope)
            except RagscopeError as e:
                st.error(md_escape(str(e)))
                dc = None
            if dc is not None:
                st.caption(f"topic overlap {dc.topic_similarity:.0%}")
                st.dataframe([{"shared topics": ", ".join(dc.shared_topics),
                               "only here": ", ".join(dc.topics_only_a[:20]),
                               "only in the other": ", ".join(dc.topics_only_b[:20])}],
                             hide_index=True)
                for name, o in dc.overlaps.items():
                    st.subheader(md_escape(EXTRACTORS[name].label), anchor=False)
                    rows = ([{"": "shared", "this document": x.text, "other document": y.text}
                             for x, y in o.shared]
                            + [{"": "only here", "this document": x.text, "other document": ""}
                               for x in o.only_a]
                            + [{"": "only in the other", "this document": "", "other document": y.text}
                               for y in o.only_b])
                    if rows:
                        st.dataframe(rows, hide_index=True)
                    else:
                        st.caption("none")
                data = export.document_comparison_dict(dc)
                _downloads(f"{base}_compare_doc{other}", export.document_comparison_csv(dc),
                           json.dumps(data, ensure_ascii=False, indent=2, default=str))

def _cross_references() -> None:
    sections = sections_of(rs, doc_id, number, scope=scope)
    sec_ids = [s.id for s in sections]
    if not sec_ids:
        st.info("This version has no sections.")
    else:
        by_id = {s.id: s.label for s in sections}
        chosen = st.selectbox("Section", sec_ids, key=K.ANALYSIS_XREF_SECTION,
                              format_func=lambda i: by_id[i][:120])
        if st.button("Find related sections", key=K.ANALYSIS_XREF_GO, icon=":material/link:"):
            try:
                with st.spinner("Searching…"):
                    found = cross_reference(rs, doc=doc_id, section=chosen, version=number,
                                            scope=scope)
                st.session_state[K.ANALYSIS_XREF_RESULT] = (doc_id, version.id, chosen, found)
            except RagscopeError as e:
                st.error(md_escape(str(e)))
        kept = st.session_state.get(K.ANALYSIS_XREF_RESULT)
        if kept and kept[:3] == (doc_id, version.id, chosen):
            found = kept[3]
            st.caption(f"query: {md_escape(found.query)}")
            if not found.hits:
                st.info("No sections of other documents on this topic.")
            else:
                st.dataframe(no_none([{"#": h.rank, "document": h.title, "section": h.section,
                               "page": h.page, "score": h.score, "reason": h.reason,
                               "link": views.section_link(h.document_id, None, h.section_id)}
                              for h in found.hits]), hide_index=True, column_config=LINK)
                _downloads(f"{base}_xref", export.xref_csv(found),
                           json.dumps({"query": found.query, "origin": found.origin,
                                       "hits": [h.__dict__ for h in found.hits]},
                                      ensure_ascii=False, indent=2))


for tab, show in zip(tabs[len(names):], (_summary, _compare, _cross_references)):
    if tab.open:
        with tab:
            show()
