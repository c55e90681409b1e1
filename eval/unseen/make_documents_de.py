#!/usr/bin/env python3
"""Generate the PDF and DOCX documents of the German half of the unseen answer benchmark
(eval/unseen/documents/de/), deterministically, from the texts in eval/unseen/texts_de.py.

    python eval/unseen/make_documents_de.py

The files are committed; rerunning with the same fpdf2/python-docx versions and fonts gives the
same bytes (fixed creation dates, fixed ZIP member timestamps, no randomness). The text
documents (.txt, .md, .html) are written by hand and live beside them.

Text format of texts_de.py: `= title`, `# heading` / `## subheading`, `- list item`,
`| cell | cell |` table rows (the first row is the header), a block between two ``` lines
is a space-aligned table printed in a monospaced font (as a typewriter-style list of figures
comes out of many PDFs), every other run of lines is one paragraph."""
from __future__ import annotations

import io
import re
import sys
from datetime import datetime, timezone
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent.parent / "data"))

import texts_de as T  # noqa: E402
from sample_formats import FONTS, find_font, normalise_zip  # noqa: E402

OUT = HERE / "documents" / "de"


def parse(src: str) -> list[tuple]:
    """Blocks: ('title', t) ('h', level, t) ('p', t) ('ul', items) ('table', rows),
    ('mono', lines)."""
    blocks: list[tuple] = []
    para: list[str] = []
    lines = src.strip("\n").split("\n")

    def flush():
        if para:
            blocks.append(("p", " ".join(s.strip() for s in para)))
            para.clear()

    i = 0
    while i < len(lines):
        s = lines[i].strip()
        if s.startswith("```"):
            flush()
            j = i + 1
            while not lines[j].strip().startswith("```"):
                j += 1
            blocks.append(("mono", lines[i + 1:j]))
            i = j
        elif not s:
            flush()
        elif s.startswith("= "):
            flush()
            blocks.append(("title", s[2:]))
        elif re.match(r"#{1,2} ", s):
            flush()
            level = len(s) - len(s.lstrip("#"))
            blocks.append(("h", level, s[level:].strip()))
        elif s.startswith("- "):
            flush()
            if blocks and blocks[-1][0] == "ul":
                blocks[-1][1].append(s[2:])
            else:
                blocks.append(("ul", [s[2:]]))
        elif s.startswith("|"):
            flush()
            row = [c.strip() for c in s.strip("|").split("|")]
            if blocks and blocks[-1][0] == "table":
                blocks[-1][1].append(row)
            else:
                blocks.append(("table", [row]))
        else:
            para.append(s)
        i += 1
    flush()
    return blocks


def _dt(doc: dict) -> datetime:
    return datetime(*doc["date"], 9, 0, 0, tzinfo=timezone.utc)


def render_pdf(doc: dict) -> bytes:
    from fpdf import FPDF
    from fpdf.fonts import FontFace

    footer = doc["footer"]

    class PDF(FPDF):
        def footer(self):
            self.set_y(-14)
            self.set_font("Sans", "", 8)
            self.cell(0, 8, f"{footer} – Seite {self.page_no()}", align="C")

    pdf = PDF(format="A4", unit="mm")
    pdf.set_margins(20, 18, 20)
    pdf.set_auto_page_break(True, margin=20)
    pdf.add_font("Sans", "", find_font(FONTS[""]))
    pdf.add_font("Sans", "B", find_font(FONTS["B"]))
    pdf.add_font("Mono", "", find_font(FONTS["mono"]))
    pdf.set_creation_date(_dt(doc))
    pdf.set_producer("ragscope eval/unseen/make_documents_de.py (fpdf2)")
    pdf.set_author(doc["author"])
    pdf.set_lang("de")
    blocks = parse(doc["text"])
    pdf.set_title(next(b[1] for b in blocks if b[0] == "title"))
    pdf.add_page()
    lh = 5.2
    for b in blocks:
        if b[0] == "title":
            pdf.set_font("Sans", "B", 16)
            pdf.multi_cell(0, 8, b[1], new_x="LMARGIN", new_y="NEXT")
            pdf.ln(3)
        elif b[0] == "h":
            if pdf.y > pdf.h - 50:
                pdf.add_page()
            pdf.ln(4)
            pdf.set_font("Sans", "B", 13 if b[1] == 1 else 11)
            pdf.multi_cell(0, 6, b[2], new_x="LMARGIN", new_y="NEXT")
            pdf.ln(1.5)
        elif b[0] == "p":
            pdf.set_font("Sans", "", 10.5)
            pdf.multi_cell(0, lh, b[1], new_x="LMARGIN", new_y="NEXT")
            pdf.ln(2.5)
        elif b[0] == "ul":
            pdf.set_font("Sans", "", 10.5)
            for item in b[1]:
                pdf.cell(6, lh, "•")
                pdf.multi_cell(0, lh, item, new_x="LMARGIN", new_y="NEXT")
                pdf.ln(0.8)
            pdf.ln(1.5)
        elif b[0] == "mono":
            pdf.set_font("Mono", "", 8.5)
            for line in b[1]:
                pdf.cell(0, 4.4, line, new_x="LMARGIN", new_y="NEXT")
            pdf.ln(3)
        elif b[0] == "table":
            pdf.set_font("Sans", "", 9.5)
            with pdf.table(text_align="LEFT", line_height=4.8, first_row_as_headings=True,
                           headings_style=FontFace(emphasis="BOLD")) as table:
                for r in b[1]:
                    row = table.row()
                    for c in r:
                        row.cell(c)
            pdf.ln(3)
    return bytes(pdf.output())


def render_docx(doc: dict) -> bytes:
    import docx
    from docx.shared import Pt

    d = docx.Document()
    blocks = parse(doc["text"])
    for b in blocks:
        if b[0] == "title":
            d.add_heading(b[1], level=0)
        elif b[0] == "h":
            d.add_heading(b[2], level=b[1])
        elif b[0] == "p":
            d.add_paragraph(b[1])
        elif b[0] == "ul":
            for item in b[1]:
                d.add_paragraph(item, style="List Bullet")
        elif b[0] == "mono":
            run = d.add_paragraph().add_run("\n".join(b[1]))
            run.font.name, run.font.size = "Courier New", Pt(9)
        elif b[0] == "table":
            rows = b[1]
            t = d.add_table(rows=len(rows), cols=len(rows[0]))
            t.style = "Table Grid"
            for ri, r in enumerate(rows):
                for ci, c in enumerate(r):
                    t.cell(ri, ci).text = c
    cp = d.core_properties
    dt = _dt(doc).replace(tzinfo=None)
    cp.title = next(b[1] for b in blocks if b[0] == "title")
    cp.author = cp.last_modified_by = doc["author"]
    cp.created = cp.modified = cp.last_printed = dt
    cp.revision = 1
    cp.language = "de-DE"
    cp.comments = "ragscope unseen answer benchmark (fictional content)"
    buf = io.BytesIO()
    d.save(buf)
    return normalise_zip(buf.getvalue())


def main() -> int:
    OUT.mkdir(parents=True, exist_ok=True)
    for doc in T.DOCS:
        render = render_pdf if doc["name"].endswith(".pdf") else render_docx
        (OUT / doc["name"]).write_bytes(render(doc))
        print(f"wrote {doc['name']}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
