"""Extraction and normalisation on real generated files (PDF, DOCX, ODT, Markdown, HTML, TXT)."""
from __future__ import annotations

import io

import pytest

from backend.errors import ExtractionError, UnsupportedFormat
from backend.ingest.extract import SUPPORTED_EXTENSIONS, extract
from backend.ingest.normalise import join_lines, normalise
from tests.conftest import ROOT
from tests.fixtures.documents import LOREM, encrypt_pdf, make_pdf


# ---- dispatcher ----------------------------------------------------------------------------
def test_unsupported_extension_names_type_and_supported_list():
    with pytest.raises(UnsupportedFormat) as err:
        extract(b"data", "tabelle.xyz")
    assert err.value.filename == "tabelle.xyz"
    assert "'.xyz'" in str(err.value) and ".pdf" in str(err.value)
    assert set(SUPPORTED_EXTENSIONS) >= {".pdf", ".docx", ".odt", ".txt", ".md", ".html", ".htm"}


@pytest.mark.parametrize("name", ["leer.txt", "leer.pdf", "leer.docx", "leer.md"])
@pytest.mark.parametrize("data", [b"", b"  \n\t \n"])
def test_empty_file(name, data):
    with pytest.raises(ExtractionError, match="file is empty"):
        extract(data, name)


def test_docx_that_is_not_a_zip():
    with pytest.raises(ExtractionError, match="not a valid DOCX file \\(not a ZIP archive\\)"):
        extract(b"Hallo, ich bin eine Textdatei.", "bericht.docx")


def test_zip_that_is_not_a_docx():
    import zipfile

    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        zf.writestr("hello.txt", "hi")
    with pytest.raises(ExtractionError, match="bericht.docx: .*DOCX"):
        extract(buf.getvalue(), "bericht.docx")


# ---- PDF -----------------------------------------------------------------------------------
def test_pdf_pages_outline_and_title():
    data = make_pdf(
        [["1 Einleitung", LOREM], ["2 Installation", LOREM * 2], ["Weiter mit der Installation. " + LOREM]],
        outline=[("1 Einleitung", 0, 0), ("2 Installation", 0, 1), ("2.1 Voraussetzungen", 1, 2)],
        title="Handbuch",
    )
    raw = extract(data, "handbuch.pdf")
    assert raw.page_count == 3
    assert raw.title == "Handbuch"
    assert {b.page for b in raw.blocks} == {1, 2, 3}
    assert [(e.title, e.level, e.page) for e in raw.outline] == [
        ("1 Einleitung", 1, 1), ("2 Installation", 1, 2), ("2.1 Voraussetzungen", 2, 3),
    ]
    text = normalise(raw)
    assert [p.number for p in text.pages] == [1, 2, 3]
    page2 = text.pages[1]
    assert text.text[page2.start : page2.end].startswith("2 Installation")
    outline = [h for h in text.headings if h.source == "outline"]
    assert text.text[outline[1].start : outline[1].end] == "2 Installation"
    # not on its page: placed at the page start
    assert outline[2].start == text.pages[2].start


def test_pdf_paragraphs_and_hyphenation_joined():
    data = make_pdf([[
        "Die Konfigu-\nration erfolgt über die E-Mail-Adresse und die Ein-\nund Ausgabe des "
        "Systems. Die Daten-\nBank-Verbindung wird geprüft.",
        "Zweiter Absatz mit eigenem Inhalt.",
    ]])
    text = normalise(extract(data, "hyphen.pdf")).text
    assert "Die Konfiguration erfolgt über die E-Mail-Adresse" in text
    assert "Ein- und Ausgabe" in text
    assert "Daten-Bank-Verbindung" in text
    assert "\n\nZweiter Absatz" in text


def test_pdf_paragraph_gaps_and_font_size_headings():
    """Without an outline, larger or bold standalone lines become headings and a vertical
    gap splits paragraphs even when every line is full width."""
    from fpdf import FPDF

    pdf = FPDF()
    pdf.add_page()
    layout = [
        ("B", 18, 0, "Jahresbericht 2024"),
        ("B", 14, 8, "Finanzen"),
        ("", 11, 4, "die Umsätze stiegen im vergangenen Jahr deutlich und die Kosten blieben"),
        ("", 11, 0, "dabei weitgehend stabil, sodass sich das Ergebnis spürbar verbessert hat"),
        ("", 11, 6, "auch die Investitionen in das Leitungsnetz wurden wie geplant umgesetzt"),
        ("", 11, 0, "und die Finanzierung erfolgte vollständig aus eigenen Mitteln des Werks"),
        ("B", 11, 6, "Ausblick"),
        ("", 11, 2, "für das kommende Jahr werden weiter steigende Umsätze erwartet werden"),
    ]
    y = 20.0
    for style, size, gap, line in layout:
        y += gap
        pdf.set_font("Helvetica", style, size)
        pdf.set_xy(10, y)
        pdf.cell(0, 6, line)
        y += size * 0.5
    raw = extract(bytes(pdf.output()), "bericht.pdf")
    assert [(b.text.split("\n")[0][:20], b.heading_level) for b in raw.blocks] == [
        ("Jahresbericht 2024", 1), ("Finanzen", 2), ("die Umsätze stiegen ", None),
        ("auch die Investition", None), ("Ausblick", 3), ("für das kommende Jah", None),
    ]
    from backend.ingest.structure import build_sections, section_path

    secs = build_sections(normalise(raw))
    assert section_path(secs, len(secs) - 1) == ["Jahresbericht 2024", "Finanzen", "Ausblick"]


def test_pdf_umlauts_and_no_page_number_lines():
    pages = [[f"Kapitel {i} behandelt Änderungen. " + LOREM, f"Seite {i} von 4"] for i in range(1, 5)]
    text = normalise(extract(make_pdf(pages), "x.pdf")).text
    assert "Änderungen" in text and "geprüft" in text
    assert "Seite 2 von 4" not in text


def test_encrypted_pdf_names_file_and_reason():
    data = encrypt_pdf(make_pdf([[LOREM]]), "secret")
    with pytest.raises(ExtractionError) as err:
        extract(data, "geheim.pdf")
    assert "geheim.pdf" in str(err.value) and "encrypted" in str(err.value)


def test_pdf_with_empty_user_password_is_read():
    data = encrypt_pdf(make_pdf([[LOREM]]), "")
    text = normalise(extract(data, "offen.pdf")).text
    assert "jährlich geprüft" in text


@pytest.mark.parametrize("cut", [0.5, 0.9])
def test_truncated_pdf(cut):
    data = make_pdf([[LOREM * 3]] * 3)
    with pytest.raises(ExtractionError, match="kaputt.pdf: .*PDF"):
        extract(data[: int(len(data) * cut)], "kaputt.pdf")


def test_garbage_pdf_and_non_pdf_bytes():
    with pytest.raises(ExtractionError, match="corrupt"):
        extract(b"%PDF-1.4\n" + b"\x00\x01garbage" * 100, "a.pdf")
    with pytest.raises(ExtractionError, match="not a valid PDF"):
        extract(b"<html>nope</html>", "b.pdf")


def test_pdf_without_text_layer():
    from fpdf import FPDF

    pdf = FPDF()
    pdf.add_page()
    pdf.rect(20, 20, 100, 50)
    with pytest.raises(ExtractionError, match="no extractable text .*neither a text layer nor an image"):
        extract(bytes(pdf.output()), "scan.pdf")


def test_scanned_pdf_without_ocr_says_so():
    """Without OCR options (or with OCR off) a scan fails with the reason, never silently."""
    data = (ROOT / "data" / "ocr" / "scan_merkblatt.pdf").read_bytes()
    with pytest.raises(ExtractionError, match="scan.pdf: the PDF has no text layer .*OCR is switched off"):
        extract(data, "scan.pdf")


# ---- DOCX / ODT ----------------------------------------------------------------------------
def make_docx() -> bytes:
    import docx

    doc = docx.Document()
    doc.core_properties.title = "Betriebshandbuch"
    doc.add_heading("Einleitung", level=1)
    doc.add_paragraph("Dieses Handbuch beschreibt den Betrieb.")
    doc.add_heading("Voraussetzungen", level=2)
    table = doc.add_table(rows=2, cols=2)
    for r, row in enumerate([("Name", "Wert"), ("RAM", "16 GB")]):
        for c, val in enumerate(row):
            table.cell(r, c).text = val
    doc.add_paragraph("Text nach der Tabelle.")
    out = io.BytesIO()
    doc.save(out)
    return out.getvalue()


def test_docx_headings_table_in_order():
    raw = extract(make_docx(), "handbuch.docx")
    assert raw.title == "Betriebshandbuch"
    assert [(b.text, b.heading_level) for b in raw.blocks] == [
        ("Einleitung", 1),
        ("Dieses Handbuch beschreibt den Betrieb.", None),
        ("Voraussetzungen", 2),
        ("Name | Wert\nRAM | 16 GB", None),
        ("Text nach der Tabelle.", None),
    ]
    text = normalise(raw)
    assert "Name | Wert\nRAM | 16 GB" in text.text
    assert [(h.title, h.level) for h in text.headings] == [("Einleitung", 1), ("Voraussetzungen", 2)]


def test_odt_headings_paragraphs_table():
    from odf import table as odftable
    from odf import text as odftext
    from odf.opendocument import OpenDocumentText

    doc = OpenDocumentText()
    doc.text.addElement(odftext.H(outlinelevel=1, text="Einleitung"))
    doc.text.addElement(odftext.P(text="Ein erster Absatz."))
    doc.text.addElement(odftext.H(outlinelevel=2, text="Details"))
    tbl = odftable.Table(name="T")
    for row_values in (("A", "B"), ("1", "2")):
        row = odftable.TableRow()
        for v in row_values:
            cell = odftable.TableCell()
            cell.addElement(odftext.P(text=v))
            row.addElement(cell)
        tbl.addElement(row)
    doc.text.addElement(tbl)
    out = io.BytesIO()
    doc.save(out)
    raw = extract(out.getvalue(), "notiz.odt")
    assert [(b.text, b.heading_level) for b in raw.blocks] == [
        ("Einleitung", 1), ("Ein erster Absatz.", None), ("Details", 2), ("A | B\n1 | 2", None),
    ]


def test_odt_that_is_not_a_zip():
    with pytest.raises(ExtractionError, match="not a valid ODT file"):
        extract(b"plain text", "x.odt")


# ---- Markdown / HTML / TXT -----------------------------------------------------------------
def test_markdown_headings_code_fence_and_inline():
    md = (
        "# Betrieb\n\nEin **wichtiger** Hinweis mit [Link](http://x.y) und `code`.\n\n"
        "```bash\n# kein Heading\n    echo hallo\n```\n\n"
        "Unterpunkt\n----------\n\n- eins\n- zwei\n\n| A | B |\n|---|---|\n| 1 | 2 |\n"
    )
    raw = extract(md.encode(), "readme.md")
    assert raw.title == "Betrieb"
    assert [(b.text, b.heading_level) for b in raw.blocks if b.heading_level] == [
        ("Betrieb", 1), ("Unterpunkt", 2),
    ]
    text = normalise(raw).text
    assert "Ein wichtiger Hinweis mit Link und code." in text
    assert "# kein Heading\n    echo hallo" in text
    assert "- eins\n- zwei" in text
    assert "A | B\n1 | 2" in text


def test_html_main_content_without_chrome():
    html = """<html><head><title>Sitzungsbericht</title><style>.x{color:red}</style>
    <script>var secret = "tracking";</script></head><body>
    <header><nav><a href="/">Startseite</a> <a href="/kontakt">Kontaktformular</a></nav></header>
    <main><article><h1>Bericht der Sitzung</h1>
    <p>Der Ausschuss hat am Montag über den Haushalt beraten und mehrere Beschlüsse gefasst.
    Die Beratung dauerte drei Stunden und war sehr konstruktiv.</p>
    <h2>Beschlüsse</h2><p>Der Haushalt wurde mit großer Mehrheit angenommen. Die Investitionen
    in Schulen werden im kommenden Jahr deutlich erhöht.</p>
    <h2>Nächste Schritte</h2><p>Die Verwaltung legt bis Juni einen Umsetzungsplan vor, der alle
    Maßnahmen und Zuständigkeiten enthält.</p></article></main>
    <aside>Anzeige: Jetzt kaufen</aside>
    <footer>Impressum | Datenschutz</footer><script>alert("x")</script></body></html>"""
    raw = extract(html.encode("utf-8"), "bericht.html")
    assert raw.title == "Sitzungsbericht"
    text = normalise(raw)
    for leaked in ("Startseite", "Kontaktformular", "tracking", "alert", "Impressum", "Anzeige", "color:red"):
        assert leaked not in text.text
    assert "Haushalt wurde mit großer Mehrheit angenommen" in text.text
    assert {(h.title, h.level) for h in text.headings} >= {("Beschlüsse", 2), ("Nächste Schritte", 2)}


def test_small_html_page_keeps_headings():
    html = b"<html><body><nav>Menu</nav><h2>Kurz</h2><p>Nur ein Satz.</p><script>x()</script></body></html>"
    raw = extract(html, "kurz.htm")
    assert [(b.text, b.heading_level) for b in raw.blocks] == [("Kurz", 2), ("Nur ein Satz.", None)]


def test_latin1_german_text_decoded_with_warning():
    body = "Größe und Übermaß: Die Prüfung der Änderungen ist abgeschlossen.\n\nSchöne Grüße"
    raw = extract(body.encode("latin-1"), "brief.txt")
    text = normalise(raw).text
    assert text == "Größe und Übermaß: Die Prüfung der Änderungen ist abgeschlossen.\n\nSchöne Grüße"
    assert raw.metadata["encoding"] == "cp1252"
    assert raw.metadata["warnings"] and "decoded as" in raw.metadata["warnings"][0]


def test_utf8_bom_and_crlf_text():
    raw = extract("\ufeffÄrger\r\nmit Zeilen\r\n\r\nZweiter".encode("utf-8"), "a.txt")
    assert "warnings" not in raw.metadata
    assert normalise(raw).text == "Ärger\nmit Zeilen\n\nZweiter"


def test_binary_content_in_txt_is_rejected():
    with pytest.raises(ExtractionError, match="binary"):
        extract(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", "bild.txt")


# ---- normalise -----------------------------------------------------------------------------
def test_normalise_cleans_characters_and_reflows_wrapped_lines():
    from backend.ingest.types import Block, RawDocument

    wrapped = (
        "Dies ist ein hart umbrochener Absatz, der über mehrere Zeilen geht und\n"
        "hier weitergeht, bis er schließlich mit dieser Zeile hier ganz am Ende\n"
        "aufhört.\n"
        "TOP 2: Haushalt"
    )
    raw = RawDocument(blocks=[Block("Tab\tund   Leer\u00a0zeichen\x07 und ﬁnal Cafe\u0301"), Block(wrapped)])
    text = normalise(raw).text
    assert text.startswith("Tab und Leer zeichen und final Café\n\n")
    assert "geht und hier weitergeht, bis er" in text
    assert text.endswith("aufhört.\nTOP 2: Haushalt")


@pytest.mark.parametrize(
    "a,b,joined",
    [("Konfigu-", "ration", "Konfiguration"), ("E-Mail-", "Adresse", "E-Mail-Adresse"),
     ("Ein-", "und Ausgabe", "Ein- und Ausgabe"), ("Text", "weiter", "Text weiter")],
)
def test_join_lines(a, b, joined):
    assert join_lines(a, b) == joined


def test_long_list_items_stay_on_their_lines():
    md = (
        "- Der erste Punkt der Liste ist lang genug, um eine ganze Zeile zu füllen\n"
        "- Der zweite Punkt der Liste ist ebenfalls recht lang und geht weiter\n"
        "  über zwei Zeilen hinweg, bis er endet\n"
        "1. Ein nummerierter Punkt, der ebenfalls eine lange Zeile füllt und so.\n"
        "2. Noch ein nummerierter Punkt, der ebenfalls eine lange Zeile füllt."
    )
    text = normalise(extract(md.encode(), "liste.md")).text
    assert text.split("\n") == [
        "- Der erste Punkt der Liste ist lang genug, um eine ganze Zeile zu füllen",
        "- Der zweite Punkt der Liste ist ebenfalls recht lang und geht weiter über zwei Zeilen hinweg, bis er endet",
        "1. Ein nummerierter Punkt, der ebenfalls eine lange Zeile füllt und so.",
        "2. Noch ein nummerierter Punkt, der ebenfalls eine lange Zeile füllt.",
    ]


def test_file_over_the_size_limit():
    from backend.errors import FileTooLarge

    with pytest.raises(FileTooLarge, match="gross.txt: file is 2.0 MiB; the limit is 1.0 MiB"):
        extract(b"a" * (2 * 2**20), "gross.txt", max_bytes=2**20)


def test_html_fallback_keeps_article_header_and_form_wrapped_content():
    html = (
        "<html><head><title>T</title></head><body><form id='f'><header>Seitenkopf</header>"
        "<article><header><h1>Artikeltitel</h1></header><p>Inhalt im Formular.</p></article>"
        "</form></body></html>"
    ).encode()
    text = normalise(extract(html, "asp.html")).text
    assert "Artikeltitel" in text and "Inhalt im Formular." in text
    assert "Seitenkopf" not in text


# ---- size limits: zip bombs and extracted characters --------------------------------------
@pytest.mark.parametrize("fmt,part", [("docx", "word/document.xml"), ("odt", "content.xml")])
def test_zip_bomb_is_refused_before_parsing_naming_the_limit(fmt, part):
    import tracemalloc

    from backend.errors import FileTooLarge
    from tests.fixtures.documents import zip_bomb

    bomb = zip_bomb(fmt, 100)  # ~0.4 MB on disk, 100 MiB of XML (~86 M characters of text)
    assert len(bomb) < 600_000
    tracemalloc.start()
    try:
        with pytest.raises(FileTooLarge) as err:
            extract(bomb, f"bombe.{fmt}")
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert str(err.value) == (f"bombe.{fmt}: {part} expands to 100 MiB, over the limit of "
                              "64 MiB per part (RAGSCOPE_MAX_UNCOMPRESSED_MB)")
    assert peak < 16 * 2**20  # refused from the central directory: nothing was inflated


def _docx_with_parts(sizes: list[int]) -> bytes:
    """A real DOCX plus extra parts of the given uncompressed sizes (compressible bytes)."""
    import zipfile

    from tests.fixtures.documents import make_docx as small_docx

    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(small_docx())) as zin, \
            zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as zout:
        for info in zin.infolist():
            zout.writestr(info, zin.read(info))
        for i, size in enumerate(sizes):
            zout.writestr(f"customXml/pad{i}.xml", b"<a/>" * (size // 4))
    return out.getvalue()


def test_zip_parts_over_the_total_limit_are_refused():
    from backend.errors import FileTooLarge
    from backend.ingest.extract.limits import MIB, ExtractLimits

    limits = ExtractLimits(max_member_bytes=1 * MIB, max_total_bytes=2 * MIB)
    data = _docx_with_parts([900_000, 900_000, 900_000])
    with pytest.raises(FileTooLarge, match=r"bericht.docx: the parts of the archive expand to "
                       r"2\.\d MiB, over the limit of 2\.0 MiB "
                       r"\(RAGSCOPE_MAX_UNCOMPRESSED_TOTAL_MB\)"):
        extract(data, "bericht.docx", limits=limits)
    raw = extract(_docx_with_parts([900_000]), "bericht.docx", limits=limits)  # under both
    assert any("Einleitung" in b.text for b in raw.blocks)


def test_zip_part_whose_header_understates_its_size_is_refused():
    """The central directory says 1000 bytes; the deflated data inflates to 3 MiB (over the
    1 MiB limit). The declared size passes the first check; reading counts the real bytes
    and the archive is refused before any parser sees it."""
    from backend.ingest.extract.limits import MIB, ExtractLimits
    from tests.fixtures.documents import lie_about_size

    data = lie_about_size(_docx_with_parts([3 * MIB]), "customXml/pad0.xml", 1000)
    with pytest.raises(ExtractionError, match=r"bericht.docx: not a valid DOCX file "
                       r"\(customXml/pad0.xml: BadZipFile: Bad CRC-32"):
        extract(data, "bericht.docx", limits=ExtractLimits(max_member_bytes=1 * MIB))


def test_zip_part_with_another_compression_method_is_refused():
    import zipfile

    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(make_docx())) as zin, zipfile.ZipFile(out, "w") as zout:
        for info in zin.infolist():
            zout.writestr(info, zin.read(info))
        zout.writestr("customXml/x.xml", b"<a/>" * 1000, compress_type=zipfile.ZIP_BZIP2)
    with pytest.raises(ExtractionError, match="customXml/x.xml uses ZIP compression method 12; "
                       "DOCX files use only stored or deflate"):
        extract(out.getvalue(), "bericht.docx")


@pytest.mark.parametrize("name", ["bericht.txt", "bericht.html", "bericht.pdf", "bericht.docx",
                                  "bericht.odt", "bericht.md"])
def test_text_over_the_character_limit_names_the_limit(name):
    from backend.errors import FileTooLarge
    from backend.ingest.extract.limits import ExtractLimits
    from tests.fixtures.documents import make_docx as docx_of
    from tests.fixtures.documents import make_odt

    paragraphs = [LOREM] * 12  # ~2,000 characters
    data = {
        ".txt": lambda: "\n\n".join(paragraphs).encode(),
        ".md": lambda: "\n\n".join(paragraphs).encode(),
        ".html": lambda: ("<html><body>" + "".join(f"<p>{p}</p>" for p in paragraphs)
                          + "</body></html>").encode(),
        ".pdf": lambda: make_pdf([paragraphs]),
        ".docx": lambda: docx_of(paragraphs),
        ".odt": lambda: make_odt(paragraphs),
    }[name[name.rindex("."):]]()
    assert extract(data, name, limits=ExtractLimits(max_chars=5000)).blocks
    with pytest.raises(FileTooLarge, match=rf"{name}: the text has (more than )?1,\d\d\d "
                       r"characters, over the limit of 1,000 \(RAGSCOPE_MAX_EXTRACTED_CHARS\)"):
        extract(data, name, limits=ExtractLimits(max_chars=1000))


def test_extract_limit_defaults_are_the_settings_defaults():
    from backend.config import Settings
    from backend.ingest.extract.limits import ExtractLimits

    assert ExtractLimits() == ExtractLimits.from_settings(Settings())


def test_what_pypdf_repairs_becomes_the_files_warning_not_log_noise(ingestor, tmp_path, capfd):
    """pypdf's "EOF marker not found" and "Stream length not defined" went to stderr and the
    API's log; now a readable PDF carries them as its warning, a truncated one fails alone
    with its error, and neither leaks."""
    import logging

    from tests.fixtures.documents import make_pdf

    good = make_pdf([["Die Pumpen im Werk Nord wurden im Mai geprüft."]])
    (tmp_path / "repariert.pdf").write_bytes(good.replace(b"/Length", b"/Lenxth", 1))
    (tmp_path / "abgeschnitten.pdf").write_bytes(good[:-6])
    class Seen(logging.Handler):  # what the API's log and stderr (root handlers) get
        records: list = []

        def emit(self, record):
            self.records.append(record)

    seen = Seen(logging.WARNING)
    logging.getLogger().addHandler(seen)
    try:
        outs = {o.filename: o for o in ingestor.ingest_paths(sorted(tmp_path.iterdir()))}
    finally:
        logging.getLogger().removeHandler(seen)
    fixed, cut = outs["repariert.pdf"], outs["abgeschnitten.pdf"]
    assert fixed.status == "new"
    assert any(w.startswith("PDF repaired while reading: Stream length not defined")
               for w in fixed.warnings), fixed.warnings
    assert cut.status == "failed" and "corrupt or truncated PDF" in cut.error
    assert not [r for r in seen.records if r.name.startswith("pypdf")]
    assert "EOF marker" not in capfd.readouterr().err
