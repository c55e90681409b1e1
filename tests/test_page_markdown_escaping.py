"""Every Markdown-rendering Streamlit call in app.py and pages/*.py shows untrusted values
only escaped (issue 10, finding 13). The scanner (tests/markdown_scan.py) reads the source with
`ast`; these tests run it on the dashboard and on hand-made snippets it must catch or pass."""
from __future__ import annotations

from pathlib import Path

import pytest

from tests.markdown_scan import SAFE_HELPERS, scan_files, scan_source

ROOT = Path(__file__).resolve().parent.parent
PAGES = [ROOT / "app.py", *sorted((ROOT / "pages").glob("*.py"))]


def test_every_markdown_call_in_the_dashboard_escapes_untrusted_values():
    findings = scan_files(PAGES, ROOT)
    assert not findings, (
        "Markdown-rendering st.* calls interpolate values that are not escaped. Wrap each in "
        "md_escape() (pages/_common.py), format numbers with a numeric spec ({n:d}, {x:.2f}), "
        "or show the text with st.text/st.code/st.dataframe:\n"
        + "\n".join(f"  {f}" for f in findings))


def test_the_scan_covers_the_dashboard():
    assert len(PAGES) > 10 and (ROOT / "pages" / "document.py") in PAGES


# (source, the expressions the scanner must report)
CAUGHT = [
    ('st.error(f"Version {v.number} failed: {v.error}")', ["v.number", "v.error"]),
    ("st.error(str(e))", ["e"]),
    ("st.success(flash)", ["flash"]),
    ('st.markdown("**%s**" % title)', ["title"]),
    ('st.markdown("**{}**".format(title))', ["title"]),
    ('st.caption("by " + author)', ["author"]),
    ('st.write(", ".join(f"{k}: {v}" for k, v in rows))', ["k", "v"]),
    ('st.info(" · ".join(names))', ["names"]),
    ('st.button(f"Open {doc.title}", key="x")', ["doc.title"]),
    ('st.expander(label=f"{h.title} — {h.page:d}")', ["h.title"]),
    ('st.tabs([f"{name}", "Other"])', ["name"]),
    ('col.metric("Status", d.status)', ["d.status"]),
    ('m[0].metric(label, 3)', ["label"]),
    ('st.text_input("Name", help=f"Existing: {names}")', ["names"]),
    ('st.radio("Pick", opts, format_func=lambda i: titles[i])', ["opts", "titles[i]"]),
    ('st.column_config.TextColumn(f"{col} name")', ["col"]),
    ('st.page_link("pages/x.py", label=f"{t}")', ["t"]),
    ('bar.progress(0.5, text=f"{what}: {done} of {total}")', ["what", "done", "total"]),
    ('(st.success if ok else st.error)(msg)', ["msg"]),
    ('getattr(st, level, st.info)(msg)', ["msg"]),
    ('st.markdown(f"{x!r}")', ["x"]),
    ('st.markdown(f"{x:>10}")', ["x"]),  # a width is no proof of a number
    ('st.markdown(body, unsafe_allow_html=True)', ["unsafe_allow_html=True", "body"]),
    # a name is as safe as its assignments; a helper as safe as its return values
    ('msg = f"Deleted {d.title}"\nst.success(msg)', ["msg"]),
    ('def line(h):\n    return f"**{h.title}**"\nst.markdown(line(hit))', ["line(hit)"]),
    ('parts = ["a"]\nparts.append(doc.title)\nst.markdown(" · ".join(parts))', ["parts"]),
    ('for s in sections:\n    st.markdown(f"- {s}")', ["s"]),
    ('st.markdown(backend.describe(doc))', ["backend.describe(doc)"]),
]

PASSED = [
    'st.error(f"Version {v.number:d} failed: {md_escape(v.error)}")',
    'st.caption(f"{n:,} chunks · {ms:.1f} ms · {len(rows)} rows · {at:%Y-%m-%d %H:%M}")',
    'st.markdown(md_escape(text))',
    'st.markdown(md_text(question))',
    'st.markdown(md_link("web page", uri))',
    'st.write(" · ".join(f"{md_escape(k)}: **{v:d}**" for k, v in rows))',
    'msg = "Saved."\nst.success(msg)',
    'label = f"{md_escape(a)}"\nlabel += f", {n:d} chunks"\nst.status(label)',
    'def line(h):\n    return f"**{md_escape(h.title)}** · {h.score:.3f}"\nst.markdown(line(h))',
    'st.markdown("    " * depth + "- item")',
    'st.selectbox("Doc", ids, format_func=lambda i: titles[i])',  # options are plain text
    'st.dataframe(rows)',
    'st.text(document_text)',
    'st.code(body)',
    'log.error(f"failed: {e}")',
    'st.metric("Documents", int(c.get("documents", 0)))',
]


@pytest.mark.parametrize("source,expected", CAUGHT, ids=[c[0][:40] for c in CAUGHT])
def test_the_scanner_catches_unescaped_interpolation(source, expected):
    found = scan_source(source)
    assert sorted(f.expr for f in found) == sorted(expected), [str(f) for f in found]
    assert all(str(f).startswith("<test>:") for f in found)


@pytest.mark.parametrize("source", PASSED, ids=[p[:40] for p in PASSED])
def test_the_scanner_passes_escaped_and_numeric_values(source):
    assert scan_source(source) == [], [str(f) for f in scan_source(source)]


def test_a_finding_names_file_line_call_and_expression():
    (f,) = scan_source('import streamlit as st\n\nst.warning(f"Delete {d.title}?")\n',
                       "pages/x.py")
    assert str(f) == "pages/x.py:3: st.warning(…): d.title"
    assert set(SAFE_HELPERS) >= {"md_escape", "md_text", "md_link", "answer_markdown"}


def test_version_diff_markdown_escapes_the_compared_text():
    from backend.analysis.views import diff_markdown
    md = diff_markdown([("same", "Preis "), ("del", "[click](http://evil) **x**"),
                        ("ins", ":red[y] <b>")])
    assert "](http" not in md and "**x**" not in md and ":red[y]" not in md and "<b>" not in md
    assert md.count(":red-background[") == 1 and md.count(":green-background[") == 1
    assert diff_markdown([]) == "—"
