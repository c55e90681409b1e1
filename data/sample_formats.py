"""The file formats of the sample corpus: one sample document (its DSL source, parsed by
data/sample_dsl.py) rendered as PDF (fpdf2), DOCX (python-docx), ODT (odfpy) or HTML, byte
for byte the same on every run (fixed creation dates, fixed ZIP member timestamps, the same
font files)."""
from __future__ import annotations

import html
import io
import zipfile
from datetime import datetime, timezone
from pathlib import Path

import sample_texts as T
from sample_dsl import parse_dsl

ZIP_DATE = (2024, 1, 1, 0, 0, 0)


def fixed_dt(doc: dict) -> datetime:
    y, m, d = doc["date"]
    return datetime(y, m, d, 9, 0, 0, tzinfo=timezone.utc)


def normalise_zip(data: bytes) -> bytes:
    """Rewrite a ZIP (DOCX/ODT) with a fixed member timestamp, keeping order and compression."""
    src = zipfile.ZipFile(io.BytesIO(data))
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as dst:
        for info in src.infolist():
            zi = zipfile.ZipInfo(info.filename, date_time=ZIP_DATE)
            zi.compress_type = info.compress_type
            zi.external_attr = 0o644 << 16
            zi.create_system = 3
            dst.writestr(zi, src.read(info.filename))
    return out.getvalue()


def find_font(names: list[str]) -> str:
    """Find a Unicode TTF (with umlauts) on the system or shipped inside an installed package."""
    dirs = [Path("/usr/share/fonts/truetype/dejavu"), Path("/usr/share/fonts")]
    try:
        import matplotlib

        dirs.append(Path(matplotlib.get_data_path()) / "fonts" / "ttf")
    except ImportError:
        pass
    for name in names:
        for d in dirs:
            if d.is_dir():
                hits = sorted(d.rglob(name))
                if hits:
                    return str(hits[0])
    raise SystemExit(f"no TTF font found among {names}; install fonts-dejavu-core or matplotlib")
FONTS = {
    "": ["DejaVuSans.ttf", "LiberationSans-Regular.ttf"],
    "B": ["DejaVuSans-Bold.ttf", "LiberationSans-Bold.ttf"],
    "mono": ["DejaVuSansMono.ttf", "LiberationMono-Regular.ttf"],
}


def render_pdf(doc: dict, src: str) -> bytes:
    from fpdf import FPDF
    from fpdf.fonts import FontFace

    footer_text = doc["footer"]
    page_word = doc["page_word"]

    class PDF(FPDF):
        def footer(self):
            self.set_y(-14)
            self.set_font("Sans", "", 8)
            self.set_text_color(110)
            self.cell(0, 8, f"{footer_text} | {page_word} {self.page_no()}", align="C")
            self.set_text_color(0)

    pdf = PDF(format="A4", unit="mm")
    pdf.set_margins(22, 20, 22)
    pdf.set_auto_page_break(True, margin=22)
    pdf.add_font("Sans", "", find_font(FONTS[""]))
    pdf.add_font("Sans", "B", find_font(FONTS["B"]))
    pdf.add_font("Mono", "", find_font(FONTS["mono"]))
    pdf.set_creation_date(fixed_dt(doc))
    pdf.set_producer("ragscope data/make_samples.py (fpdf2)")
    pdf.set_creator("ragscope data/make_samples.py")
    pdf.set_author(doc["author"])
    pdf.set_lang(doc["lang"])
    blocks = parse_dsl(src)
    title = next(b[1] for b in blocks if b[0] == "title")
    pdf.set_title(title)
    pdf.add_page()
    hyph_count = 0

    def wrap(text: str, width: float) -> list[str]:
        """Greedy line breaking at spaces only; optionally hyphenates known compound words."""
        nonlocal hyph_count
        lines, cur = [], ""
        for word in text.split(" "):
            cand = f"{cur} {word}" if cur else word
            if pdf.get_string_width(cand) <= width:
                cur = cand
                continue
            core = word.rstrip(".,;:!?)“")
            if doc.get("hyphenate") and cur and core in T.HYPHENATION:
                head = T.HYPHENATION[core]
                if pdf.get_string_width(f"{cur} {head}-") <= width:
                    lines.append(f"{cur} {head}-")
                    cur = word[len(head):]
                    hyph_count += 1
                    continue
            if cur:
                lines.append(cur)
            cur = word
        if cur:
            lines.append(cur)
        return lines

    lh = 5.3
    for b in blocks:
        kind = b[0]
        if kind == "title":
            pdf.set_font("Sans", "B", 17)
            for line in wrap(b[1], pdf.epw):
                pdf.cell(0, 8, line, new_x="LMARGIN", new_y="NEXT")
            pdf.ln(4)
        elif kind == "h":
            level, text = b[1], b[2]
            if pdf.y > pdf.h - 22 - 30:
                pdf.add_page()
            pdf.ln(3 if level > 1 else 5)
            if doc.get("outline"):
                pdf.start_section(text, level=level - 1)
            size = {1: 14, 2: 12, 3: 11}[level]
            pdf.set_font("Sans", "B", size)
            for line in wrap(text, pdf.epw):
                pdf.cell(0, size * 0.5, line, new_x="LMARGIN", new_y="NEXT")
            pdf.ln(2)
        elif kind == "p":
            pdf.set_font("Sans", "", 10.5)
            lines = wrap(b[1], pdf.epw)
            # keep short paragraphs on one page (orphan/widow control); longer ones may still
            # run across a page break, with the page footer in between
            if len(lines) <= 4 and pdf.y + len(lines) * lh > pdf.page_break_trigger:
                pdf.add_page()
            for line in lines:
                pdf.cell(0, lh, line, new_x="LMARGIN", new_y="NEXT")
            pdf.ln(2.5)
        elif kind == "ul":
            pdf.set_font("Sans", "", 10.5)
            for item in b[1]:
                for j, line in enumerate(wrap(item, pdf.epw - 6)):
                    pdf.set_x(pdf.l_margin)
                    pdf.cell(6, lh, "•" if j == 0 else "")
                    pdf.cell(0, lh, line, new_x="LMARGIN", new_y="NEXT")
                pdf.ln(1)
            pdf.ln(1.5)
        elif kind == "code":
            pdf.set_font("Mono", "", 9)
            pdf.set_fill_color(242, 242, 242)
            for line in b[1].split("\n"):
                pdf.cell(0, 4.6, line, new_x="LMARGIN", new_y="NEXT", fill=True)
            pdf.ln(3)
        elif kind == "table":
            rows = b[1]
            pdf.set_font("Sans", "", 9.5)
            ncol = len(rows[0])
            widths = {2: (45, 55), 3: (24, 34, 42), 4: (12, 48, 22, 18)}[ncol]
            with pdf.table(col_widths=widths, text_align="LEFT", line_height=4.8,
                           first_row_as_headings=True,
                           headings_style=FontFace(emphasis="BOLD")) as table:
                for r in rows:
                    row = table.row()
                    for c in r:
                        row.cell(c)
            pdf.ln(3)
    if doc.get("hyphenate") and hyph_count == 0:
        raise SystemExit(f"{doc['name']}: expected at least one hyphenation at a line end")
    return bytes(pdf.output())


def render_docx(doc: dict, src: str) -> bytes:
    import docx
    from docx.shared import Pt

    d = docx.Document()
    blocks = parse_dsl(src)
    for b in blocks:
        kind = b[0]
        if kind == "title":
            d.add_heading(b[1], level=0)
        elif kind == "h":
            d.add_heading(b[2], level=b[1])
        elif kind == "p":
            d.add_paragraph(b[1])
        elif kind == "ul":
            for item in b[1]:
                d.add_paragraph(item, style="List Bullet")
        elif kind == "code":
            p = d.add_paragraph()
            run = p.add_run(b[1])
            run.font.name = "Courier New"
            run.font.size = Pt(9)
        elif kind == "table":
            rows = b[1]
            t = d.add_table(rows=len(rows), cols=len(rows[0]))
            t.style = "Table Grid"
            for ri, r in enumerate(rows):
                for ci, c in enumerate(r):
                    cell = t.cell(ri, ci)
                    cell.text = c
                    if ri == 0:
                        for run in cell.paragraphs[0].runs:
                            run.bold = True
    cp = d.core_properties
    title = next(b[1] for b in blocks if b[0] == "title")
    dt = fixed_dt(doc).replace(tzinfo=None)
    cp.title = title
    cp.author = doc["author"]
    cp.last_modified_by = doc["author"]
    cp.created = dt
    cp.modified = dt
    cp.last_printed = dt
    cp.revision = 1
    cp.language = {"de": "de-DE", "en": "en-GB"}[doc["lang"]]
    cp.comments = "ragscope sample corpus (fictional content)"
    buf = io.BytesIO()
    d.save(buf)
    return normalise_zip(buf.getvalue())


def render_odt(doc: dict, src: str) -> bytes:
    from odf import dc, meta
    from odf.opendocument import OpenDocumentText
    from odf.style import (ListLevelProperties, ParagraphProperties, Style, TableColumnProperties,
                           TextProperties)
    from odf.table import Table, TableCell, TableColumn, TableRow
    from odf.text import H, List, ListItem, ListLevelStyleBullet, ListStyle, P

    o = OpenDocumentText()
    st = {}
    st["title"] = Style(name="Title", displayname="Title", family="paragraph")
    st["title"].addElement(TextProperties(fontsize="20pt", fontweight="bold"))
    st["title"].addElement(ParagraphProperties(marginbottom="0.4cm"))
    for lvl, size in ((1, "15pt"), (2, "13pt"), (3, "11.5pt")):
        s = Style(name=f"Heading_20_{lvl}", displayname=f"Heading {lvl}", family="paragraph",
                  defaultoutlinelevel=str(lvl))
        s.addElement(TextProperties(fontsize=size, fontweight="bold"))
        s.addElement(ParagraphProperties(margintop="0.35cm", marginbottom="0.15cm", keepwithnext="always"))
        st[f"h{lvl}"] = s
    st["body"] = Style(name="Text_20_body", displayname="Text body", family="paragraph")
    st["body"].addElement(ParagraphProperties(marginbottom="0.2cm"))
    st["cell"] = Style(name="Table_20_Contents", displayname="Table Contents", family="paragraph")
    for s in st.values():
        o.styles.addElement(s)
    lst = ListStyle(name="Bullets")
    lbs = ListLevelStyleBullet(level=1, bulletchar="•")
    lbs.addElement(ListLevelProperties(spacebefore="0.4cm", minlabelwidth="0.5cm"))
    lst.addElement(lbs)
    o.automaticstyles.addElement(lst)
    colstyles = {}

    blocks = parse_dsl(src)
    title = next(b[1] for b in blocks if b[0] == "title")
    for b in blocks:
        kind = b[0]
        if kind == "title":
            o.text.addElement(P(stylename=st["title"], text=b[1]))
        elif kind == "h":
            o.text.addElement(H(outlinelevel=b[1], stylename=st[f"h{b[1]}"], text=b[2]))
        elif kind == "p":
            o.text.addElement(P(stylename=st["body"], text=b[1]))
        elif kind == "ul":
            lst_el = List(stylename=lst)
            for item in b[1]:
                li = ListItem()
                li.addElement(P(stylename=st["body"], text=item))
                lst_el.addElement(li)
            o.text.addElement(lst_el)
        elif kind == "code":
            for line in b[1].split("\n"):
                o.text.addElement(P(stylename=st["body"], text=line))
        elif kind == "table":
            rows = b[1]
            ncol = len(rows[0])
            tname = f"Table{len(colstyles) + 1}"
            cs = Style(name=f"{tname}.col", family="table-column")
            cs.addElement(TableColumnProperties(columnwidth=f"{16.0 / ncol:.2f}cm"))
            o.automaticstyles.addElement(cs)
            colstyles[tname] = cs
            t = Table(name=tname)
            t.addElement(TableColumn(numbercolumnsrepeated=ncol, stylename=cs))
            for r in rows:
                tr = TableRow()
                for c in r:
                    tc = TableCell(valuetype="string")
                    tc.addElement(P(stylename=st["cell"], text=c))
                    tr.addElement(tc)
                t.addElement(tr)
            o.text.addElement(t)
    stamp = fixed_dt(doc).strftime("%Y-%m-%dT%H:%M:%S")
    o.meta.addElement(dc.Title(text=title))
    o.meta.addElement(dc.Language(text={"de": "de-DE", "en": "en-GB"}[doc["lang"]]))
    o.meta.addElement(meta.InitialCreator(text=doc["author"]))
    o.meta.addElement(dc.Creator(text=doc["author"]))
    o.meta.addElement(meta.CreationDate(text=stamp))
    o.meta.addElement(dc.Date(text=stamp))
    buf = io.BytesIO()
    o.write(buf)
    return normalise_zip(buf.getvalue())


def render_html(doc: dict, src: str) -> bytes:
    site = T.SITES[doc["site"]]
    e = html.escape
    body = []
    for b in parse_dsl(src):
        kind = b[0]
        if kind == "title":
            body.append(f"<h1>{e(b[1])}</h1>")
        elif kind == "h":
            lvl = b[1] + 1
            body.append(f"<h{lvl}>{e(b[2])}</h{lvl}>")
        elif kind == "p":
            body.append(f"<p>{e(b[1])}</p>")
        elif kind == "ul":
            body.append("<ul>\n" + "\n".join(f"  <li>{e(i)}</li>" for i in b[1]) + "\n</ul>")
        elif kind == "code":
            body.append(f"<pre><code>{e(b[1])}</code></pre>")
        elif kind == "table":
            rows = b[1]
            head = "".join(f"<th>{e(c)}</th>" for c in rows[0])
            trs = "\n".join("  <tr>" + "".join(f"<td>{e(c)}</td>" for c in r) + "</tr>" for r in rows[1:])
            body.append(f"<table>\n<thead><tr>{head}</tr></thead>\n<tbody>\n{trs}\n</tbody>\n</table>")
    main = "\n".join(body)
    page = f"""<!DOCTYPE html>
<html lang="{site['lang']}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{e(site['head_title'])}</title>
<link rel="stylesheet" href="/static/site.css">
<style>body {{ font-family: sans-serif; }} .banner {{ position: fixed; bottom: 0; }}</style>
</head>
<body>
{site['header']}
{site['nav']}
{site['before_main']}
<main id="content">
<article>
{main}
</article>
</main>
{site['aside']}
{site['footer']}
{site['scripts']}
</body>
</html>
"""
    return page.encode("utf-8")
RENDER = {"pdf": render_pdf, "docx": render_docx, "odt": render_odt, "html": render_html}
