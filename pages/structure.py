"""Structure: a version's section tree as a table and, on request, as a sunburst or treemap
(size = characters or chunks); choosing a section shows its text and chunks.

The chart is behind "Show chart" (remembered for the session): its browser code is Plotly's
4.6 MB chunk, which took 1-3 s of the browser's main thread on every direct load of this
page although the table is what one reads first (docs/benchmarks.md, "Dashboard page
load"). plotly itself is imported only when the chart is shown."""
import streamlit as st

from backend.services import documents as docs
from backend.errors import NotFound
from backend.ui import state as K
from backend.ui import structure
from backend.ui.tables import OPEN_ON_CLICK, no_none
from pages._common import (
    current_scope,
    get_rs,
    md_escape,
    pick_document,
    plain_label,
    require_page,
)

user = require_page("viewer")
rs = get_rs()
scope = current_scope()
st.title("Structure")

doc_id = pick_document(K.STRUCTURE_PICK)
if doc_id is None:
    st.stop()
try:
    version_id = docs.default_version_id(rs, doc_id, scope=scope)
except NotFound as e:
    st.error(md_escape(e))
    st.session_state[K.EXPLORER_DOC_ID] = None
    st.stop()
tree = docs.section_tree(rs, version_id, scope=scope) if version_id else None
if tree is None:
    st.info("This document has no section tree (it has no indexed version).")
    st.stop()
nodes = {n.id: n for n in tree.walk()}
if st.session_state.get(K.STRUCTURE_SECTION) not in nodes:
    st.session_state[K.STRUCTURE_SECTION] = tree.id


def _stats(n: docs.SectionNode) -> str:
    pages = ""
    if n.page_start:
        pages = f" · p. {n.page_start}" + (f"–{n.page_end}" if n.page_end != n.page_start else "")
    chunks = f"{n.subtree_chunks} chunk" + ("" if n.subtree_chunks == 1 else "s")
    return f"{n.kind} · {n.chars:,} chars · {chunks}{pages}"


def _label(n: docs.SectionNode) -> str:
    return "(whole document)" if n is tree else n.label


def _table_reset() -> None:
    """Another control chose the section: the table's row highlight would be stale."""
    st.session_state[K.STRUCTURE_TABLE_N] += 1
    st.session_state[K.STRUCTURE_TABLE_SEEN] = None


show_chart = st.toggle("Show chart", key=K.STRUCTURE_CHART_ON,
                       help="the section tree as a sunburst or treemap; click a segment to "
                            "show its section")
if show_chart:
    c1, c2 = st.columns(2)
    size_by = c1.radio("Size by", ["characters", "chunks"], key=K.STRUCTURE_SIZE_BY,
                       horizontal=True)
    chart = c2.radio("Chart", ["sunburst", "treemap"], key=K.STRUCTURE_CHART, horizontal=True)
    tree_col, chart_col = st.columns(2)
else:
    tree_col = chart_col = None

with tree_col if tree_col is not None else st.container():
    st.subheader("Sections", anchor=False)
    st.caption(f"{len(nodes) - 1} sections · {tree.subtree_chunks:d} chunks · click a row to "
               "show the section")
    row_ids, rows = structure.section_rows(tree)
    event = st.dataframe(
        rows, hide_index=True, height=structure.height(len(rows)), on_select="rerun",
        selection_mode=OPEN_ON_CLICK,
        key=f"{K.STRUCTURE_TABLE}.{version_id}.{st.session_state[K.STRUCTURE_TABLE_N]:d}",
        column_config={k: st.column_config.Column(width=w) for k, w in structure.WIDTHS.items()})
    row_pick = structure.picked_section(row_ids, event)
    if row_pick is not None and row_pick != st.session_state.get(K.STRUCTURE_TABLE_SEEN):
        st.session_state[K.STRUCTURE_SECTION] = row_pick  # one click shows it
    st.session_state[K.STRUCTURE_TABLE_SEEN] = row_pick


def _chart() -> None:
    """The sunburst or treemap in the right column; a clicked segment chooses the section."""
    import plotly.graph_objects as go

    ids, parents, labels, values, hover = [], [], [], [], []

    def total(n: docs.SectionNode) -> int:
        """Sizes consistent for branchvalues='total': a parent is never smaller than the
        sum of its children."""
        own = n.chars if size_by == "characters" else n.chunks
        child = sum(total(c) for c in n.children)
        v = max(own, child) if size_by == "characters" else own + child
        ids.append(str(n.id))
        parents.append("" if n is tree else str(n.parent_id or tree.id))
        labels.append(plain_label(_label(n), 40))
        values.append(v)
        hover.append(plain_label(f"{_label(n)} ({_stats(n)})", 200))
        return v

    total(tree)
    trace = go.Sunburst if chart == "sunburst" else go.Treemap
    fig = go.Figure(trace(ids=ids, parents=parents, labels=labels, values=values,
                          branchvalues="total", hovertext=hover, hoverinfo="text",
                          customdata=ids, maxdepth=3))
    fig.update_layout(margin=dict(t=10, l=10, r=10, b=10), height=460)
    event = st.plotly_chart(fig, key=K.STRUCTURE_PLOT, on_select="rerun",
                            selection_mode="points")
    points = (event or {}).get("selection", {}).get("points", []) if event else []
    picked = None
    for p in points:
        sid = p.get("customdata") or p.get("id")
        if isinstance(sid, list):
            sid = sid[0] if sid else None
        if sid is not None and str(sid).isdigit() and int(sid) in nodes:
            picked = int(sid)
    # A chart selection persists across reruns: apply it only when it changes.
    if picked is not None and picked != st.session_state.get(K.STRUCTURE_PLOT_SEEN):
        st.session_state[K.STRUCTURE_SECTION] = picked
        _table_reset()
    st.session_state[K.STRUCTURE_PLOT_SEEN] = picked


if chart_col is not None:
    with chart_col:
        _chart()

st.divider()
choice = st.selectbox("Section", list(nodes), key=K.STRUCTURE_SECTION, on_change=_table_reset,
                      format_func=lambda i: ("· " * max(0, nodes[i].level - 1)
                                             + _label(nodes[i]))[:160])
node = nodes[choice]
st.subheader(md_escape(_label(node)), anchor=False)
st.caption(f"{md_escape(_stats(node))} · characters {node.start:d}–{node.end:d}")
text_col, chunk_col = st.columns(2)
with text_col:
    text = docs.version_text(rs, version_id, node.start, node.end, scope=scope)
    with st.container(height=380, key=K.STRUCTURE_TEXT):  # verbatim (st.code: see document.py)
        st.text(text or "(empty)", width="stretch")
with chunk_col:
    chunks = docs.chunks_of(rs, version_id, [n.id for n in node.walk()], scope=scope)
    st.dataframe(no_none({"#": c.ordinal, "section": c.section, "start": c.start, "end": c.end,
                          "page": c.page, "text": c.text[:240]} for c in chunks),
                 hide_index=True, height=380)
