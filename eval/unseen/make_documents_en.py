#!/usr/bin/env python3
"""Generate the PDF and DOCX documents of the English half of the unseen answer benchmark.

    python eval/unseen/make_documents_en.py     # writes eval/unseen/documents/en/*.pdf|*.docx

The texts below were written for this benchmark only (fictional organisations, people and
figures); the .txt/.md/.html documents of eval/unseen/documents/en/ are hand-written files and
not generated. Output is deterministic for the same fpdf2/python-docx versions and fonts: PDF
creation dates are fixed, DOCX core properties are fixed and ZIP members get a fixed timestamp.

Source DSL, one block per paragraph (blocks are separated by blank lines):
  "= Title"              document title
  "# ..", "## .."        headings (level 1, 2)
  "- item" lines         a bullet list
  "| a | b |" lines      a table (first row is the header, a "|---|" row is skipped); a real
                         table in PDF and DOCX
  "```" ... "```"        preformatted lines (monospace, spaces kept): a space-aligned table
  other lines            a paragraph (lines are joined with a space)
"""
from __future__ import annotations

import io
import sys
import zipfile
from datetime import datetime, timezone
from pathlib import Path

OUT = Path(__file__).resolve().parent / "documents" / "en"
ZIP_DATE = (2025, 1, 1, 0, 0, 0)
FONT_DIRS = [Path("/usr/share/fonts/truetype/dejavu"), Path("/usr/share/fonts")]
FONTS = {"": "DejaVuSans.ttf", "B": "DejaVuSans-Bold.ttf", "mono": "DejaVuSansMono.ttf"}


def parse(src: str) -> list[tuple]:
    """The DSL above -> blocks ('title'|'h1'|'h2'|'p'|'pre', text) / ('ul'|'table', items)."""
    blocks: list[tuple] = []
    lines = src.strip("\n").split("\n")
    i = 0
    para: list[str] = []

    def flush():
        if para:
            blocks.append(("p", " ".join(para)))
            para.clear()

    while i < len(lines):
        s = lines[i].strip()
        if s.startswith("```"):
            flush()
            j = i + 1
            while not lines[j].strip().startswith("```"):
                j += 1
            blocks.append(("pre", "\n".join(lines[i + 1:j])))
            i = j
        elif not s:
            flush()
        elif s.startswith("= "):
            flush()
            blocks.append(("title", s[2:]))
        elif s.startswith("## "):
            flush()
            blocks.append(("h2", s[3:]))
        elif s.startswith("# "):
            flush()
            blocks.append(("h1", s[2:]))
        elif s.startswith("- "):
            flush()
            if blocks and blocks[-1][0] == "ul" and lines[i - 1].strip().startswith("- "):
                blocks[-1][1].append(s[2:])
            else:
                blocks.append(("ul", [s[2:]]))
        elif s.startswith("|"):
            flush()
            cells = [c.strip() for c in s.strip("|").split("|")]
            if all(set(c) <= set("-: ") for c in cells):  # a Markdown separator row
                i += 1
                continue
            if blocks and blocks[-1][0] == "table" and lines[i - 1].strip().startswith("|"):
                blocks[-1][1].append(cells)
            else:
                blocks.append(("table", [cells]))
        else:
            para.append(s)
        i += 1
    flush()
    return blocks


def font(name: str) -> str:
    for d in FONT_DIRS:
        hits = sorted(d.rglob(name)) if d.is_dir() else []
        if hits:
            return str(hits[0])
    raise SystemExit(f"font {name} not found; install fonts-dejavu-core")


def fixed_dt(doc: dict) -> datetime:
    return datetime(*doc["date"], 9, 0, 0, tzinfo=timezone.utc)


def render_pdf(doc: dict) -> bytes:
    from fpdf import FPDF
    from fpdf.fonts import FontFace

    footer = doc["footer"]

    class PDF(FPDF):
        def footer(self):
            self.set_y(-14)
            self.set_font("Sans", "", 8)
            self.set_text_color(110)
            self.cell(0, 8, f"{footer} | Page {self.page_no()}", align="C")
            self.set_text_color(0)

    pdf = PDF(format="A4", unit="mm")
    pdf.set_margins(20, 20, 20)
    pdf.set_auto_page_break(True, margin=22)
    for style, name in (("", FONTS[""]), ("B", FONTS["B"])):
        pdf.add_font("Sans", style, font(name))
    pdf.add_font("Mono", "", font(FONTS["mono"]))
    pdf.set_creation_date(fixed_dt(doc))
    pdf.set_producer("ragscope eval/unseen/make_documents_en.py (fpdf2)")
    pdf.set_creator("ragscope eval/unseen/make_documents_en.py")
    pdf.set_author(doc["author"])
    pdf.set_lang("en")
    blocks = parse(doc["src"])
    pdf.set_title(next(b[1] for b in blocks if b[0] == "title"))
    pdf.add_page()
    for kind, body in blocks:
        if kind == "title":
            pdf.set_font("Sans", "B", 16)
            pdf.multi_cell(0, 8, body, new_x="LMARGIN", new_y="NEXT")
            pdf.ln(3)
        elif kind in ("h1", "h2"):
            if pdf.y > pdf.h - 55:
                pdf.add_page()
            pdf.ln(4 if kind == "h1" else 2)
            pdf.set_font("Sans", "B", 13 if kind == "h1" else 11)
            pdf.multi_cell(0, 6, body, new_x="LMARGIN", new_y="NEXT")
            pdf.ln(1.5)
        elif kind == "p":
            pdf.set_font("Sans", "", 10)
            pdf.multi_cell(0, 5.2, body, new_x="LMARGIN", new_y="NEXT")
            pdf.ln(2.5)
        elif kind == "ul":
            pdf.set_font("Sans", "", 10)
            for item in body:
                pdf.set_x(pdf.l_margin)
                pdf.cell(6, 5.2, "•")
                pdf.multi_cell(0, 5.2, item, new_x="LMARGIN", new_y="NEXT")
                pdf.ln(1)
            pdf.ln(1.5)
        elif kind == "pre":
            pdf.set_font("Mono", "", 8)
            for line in body.split("\n"):
                pdf.cell(0, 4.4, line, new_x="LMARGIN", new_y="NEXT")
            pdf.ln(3)
        elif kind == "table":
            pdf.set_font("Sans", "", 9)
            with pdf.table(text_align="LEFT", line_height=4.8, first_row_as_headings=True,
                           col_widths=doc.get("col_widths"),
                           headings_style=FontFace(emphasis="BOLD")) as table:
                for r in body:
                    row = table.row()
                    for c in r:
                        row.cell(c)
            pdf.ln(3)
    return bytes(pdf.output())


def normalise_zip(data: bytes) -> bytes:
    """Rewrite a DOCX with fixed member timestamps, keeping order and compression."""
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


def render_docx(doc: dict) -> bytes:
    import docx
    from docx.shared import Pt

    d = docx.Document()
    blocks = parse(doc["src"])
    for kind, body in blocks:
        if kind == "title":
            d.add_heading(body, level=0)
        elif kind in ("h1", "h2"):
            d.add_heading(body, level=int(kind[1]))
        elif kind == "p":
            d.add_paragraph(body)
        elif kind == "ul":
            for item in body:
                d.add_paragraph(item, style="List Bullet")
        elif kind == "pre":
            for line in body.split("\n"):
                run = d.add_paragraph().add_run(line)
                run.font.name = "Courier New"
                run.font.size = Pt(9)
        elif kind == "table":
            t = d.add_table(rows=len(body), cols=len(body[0]))
            t.style = "Table Grid"
            for ri, r in enumerate(body):
                for ci, c in enumerate(r):
                    t.cell(ri, ci).text = c
                    if ri == 0:
                        for run in t.cell(ri, ci).paragraphs[0].runs:
                            run.bold = True
    cp = d.core_properties
    dt = fixed_dt(doc).replace(tzinfo=None)
    cp.title = next(b[1] for b in blocks if b[0] == "title")
    cp.author = cp.last_modified_by = doc["author"]
    cp.created = cp.modified = cp.last_printed = dt
    cp.revision = 1
    cp.language = "en-GB"
    cp.comments = "ragscope unseen answer benchmark (fictional content)"
    buf = io.BytesIO()
    d.save(buf)
    return normalise_zip(buf.getvalue())


def main() -> int:
    from texts_en import DOCS

    OUT.mkdir(parents=True, exist_ok=True)
    for doc in DOCS:
        render = render_pdf if doc["name"].endswith(".pdf") else render_docx
        (OUT / doc["name"]).write_bytes(render(doc))
        print(f"wrote {OUT / doc['name']}")
    return 0


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    sys.exit(main())
