"""Section trees from markup, PDF outlines and numbering patterns, with false-positive guards."""
from __future__ import annotations

import pytest

from backend.ingest.extract import extract
from backend.ingest.normalise import normalise
from backend.ingest.structure import build_sections, match_heading, section_path
from backend.ingest.types import Block, RawDocument
from tests.fixtures.documents import LOREM, make_pdf

BODY = "Dazu wurde ausführlich beraten und das Ergebnis im Protokoll festgehalten."


def sections_of(source: str, name: str = "doc.txt"):
    text = normalise(extract(source.encode("utf-8"), name))
    return text, build_sections(text)


def outline(secs):
    """(kind, depth, number, title, parent title) per non-root node."""
    return [
        (s.kind, s.level, s.number, s.title, secs[s.parent].title if s.parent else None)
        for s in secs[1:]
    ]


def test_root_spans_whole_text_with_title():
    text, secs = sections_of("# Titel\n\nText.", "a.md")
    root = secs[0]
    assert (root.kind, root.level, root.start, root.end, root.parent) == (
        "document", 0, 0, len(text.text), None
    )
    assert root.title == "Titel"


def test_minutes_agenda_items_and_appendix():
    minutes = "\n\n".join([
        "Protokoll der Sitzung des Bauausschusses",
        "Tagesordnung:\nTOP 1: Begrüßung\nTOP 2: Genehmigung des Protokolls\n"
        "TOP 3: Haushalt 2025\nTOP 4: Verschiedenes",
        "TOP 1: Begrüßung", "Der Vorsitzende begrüßt die Anwesenden. " + BODY,
        "TOP 2: Genehmigung des Protokolls", BODY,
        "TOP 3: Haushalt 2025", "3.2 Mio. Euro wurden für Schulen bereitgestellt. " + BODY,
        "TOP 4 – Verschiedenes", BODY,
        "Anlage 1: Teilnehmerliste", "Müller, Schmidt, Weber",
    ])
    text, secs = sections_of(minutes)
    assert outline(secs) == [
        ("agenda_item", 1, "TOP 1", "TOP 1: Begrüßung", None),
        ("agenda_item", 1, "TOP 2", "TOP 2: Genehmigung des Protokolls", None),
        ("agenda_item", 1, "TOP 3", "TOP 3: Haushalt 2025", None),
        ("agenda_item", 1, "TOP 4", "TOP 4 – Verschiedenes", None),
        ("appendix", 1, "Anlage 1", "Anlage 1: Teilnehmerliste", None),
    ]
    top3, top4, anlage = secs[3], secs[4], secs[5]
    assert top3.end == top4.start and top4.end == anlage.start and anlage.end == len(text.text)
    assert "3.2 Mio. Euro" in text.text[top3.start : top3.end]


def test_manual_numbered_chapters_nest():
    manual = "\n\n".join([
        "Benutzerhandbuch",
        "1 Einleitung", BODY,
        "2 Installation", BODY,
        "2.1 Voraussetzungen", BODY,
        "2.2 Konfiguration", BODY,
        "2.2.1 Datenbank", BODY,
        "3 Betrieb", BODY,
    ])
    text, secs = sections_of(manual)
    assert [(s.kind, s.level, s.number) for s in secs[1:]] == [
        ("chapter", 1, "1"), ("chapter", 1, "2"), ("section", 2, "2.1"), ("section", 2, "2.2"),
        ("section", 3, "2.2.1"), ("chapter", 1, "3"),
    ]
    inst, conf, db, betrieb = secs[2], secs[4], secs[5], secs[6]
    assert inst.end == betrieb.start and conf.end == betrieb.start and db.parent == 4
    assert section_path(secs, 5) == ["2 Installation", "2.2 Konfiguration", "2.2.1 Datenbank"]
    assert section_path(secs, 0) == []


def test_policy_paragraphs():
    policy = "\n\n".join([
        "Richtlinie zur IT-Nutzung",
        "§ 1 Geltungsbereich", "Diese Richtlinie gilt für alle Beschäftigten.",
        "§ 2 Begriffe", "Nach § 3 Abs. 2 sind Geräte alle Rechner.",
        "§3 Pflichten", BODY,
        "§ 4 Abs. 2 BGB regelt die Einzelheiten dieser Pflichten sehr genau, wie bekannt.",
    ])
    _, secs = sections_of(policy)
    assert [(s.kind, s.number, s.title) for s in secs[1:]] == [
        ("paragraph", "§ 1", "§ 1 Geltungsbereich"),
        ("paragraph", "§ 2", "§ 2 Begriffe"),
        ("paragraph", "§ 3", "§3 Pflichten"),
    ]


def test_chapters_parts_articles_and_english_appendix():
    doc = "\n\n".join([
        "Teil I Allgemeines", "Kapitel 1 Ziele", BODY, "Kapitel 2 Mittel", BODY,
        "Teil II Besonderes", "Artikel 3 Fristen", BODY, "Appendix A: Glossary", "Terms.",
    ])
    _, secs = sections_of(doc)
    assert outline(secs) == [
        ("chapter", 1, "Teil I", "Teil I Allgemeines", None),
        ("chapter", 2, "Kapitel 1", "Kapitel 1 Ziele", "Teil I Allgemeines"),
        ("chapter", 2, "Kapitel 2", "Kapitel 2 Mittel", "Teil I Allgemeines"),
        ("chapter", 1, "Teil II", "Teil II Besonderes", None),
        ("paragraph", 2, "Artikel 3", "Artikel 3 Fristen", "Teil II Besonderes"),
        ("appendix", 1, "Appendix A", "Appendix A: Glossary", None),
    ]


@pytest.mark.parametrize(
    "source",
    [
        "Bericht\n\n3.2 Mio. Euro wurden ausgegeben.\n\nWeitere Ausgaben folgen.",
        "Einkaufsliste\n\n1. Milch\n2. Eier\n3. Butter\n\nDanach nach Hause.",
        "Liste\n\n1 Apfel\n\n2 Birnen\n\n3 Kirschen",
        "2 Personen haben an der Sitzung teilgenommen und alle Punkte besprochen.",
        "Anlage 2 zeigt die Kosten im Detail.\n\nChapter 3 describes the setup.",
        "Der Termin ist am\n12.03.2024 Sitzung im Rathaus\n\nund 18.30 Uhr Beginn",
        "§ 4 Abs. 2 BGB\n\nText.",
        "5 Einleitung\n\nText.\n\n7.3 Irgendwas\n\nText.",
        "Inhalt\n\n1 Einleitung .......... 3\n2 Installation ........ 5",
    ],
)
def test_false_positives_make_no_sections(source):
    _, secs = sections_of(source)
    assert [s.title for s in secs[1:]] == []


def test_agenda_under_document_even_after_numbered_heading():
    _, secs = sections_of("1 Allgemeines\n\nText.\n\nTOP 1: Start\n\nText.\n\n1.1 Detail\n\nText.")
    assert [(s.kind, s.parent) for s in secs[1:]] == [
        ("chapter", 0), ("agenda_item", 0), ("section", 2),
    ]


def test_markdown_headings_win_and_keyword_lines_are_added():
    md = "# Protokoll\n\nText.\n\n## Teilnehmer\n\n1 Person fehlte.\n\n2.1 Unterpunkt\n\nAnlage 1: Liste\n\nA, B"
    _, secs = sections_of(md, "p.md")
    assert [(s.kind, s.title, s.parent) for s in secs[1:]] == [
        ("chapter", "Protokoll", 0), ("section", "Teilnehmer", 1), ("appendix", "Anlage 1: Liste", 0),
    ]


def test_pdf_outline_sections_have_page_ranges():
    data = make_pdf(
        [["1 Einleitung", LOREM], ["2 Installation", LOREM], ["Fortsetzung. " + LOREM],
         ["2.1 Voraussetzungen", LOREM], ["3 Betrieb", LOREM]],
        outline=[("1 Einleitung", 0, 0), ("2 Installation", 0, 1), ("2.1 Voraussetzungen", 1, 3),
                 ("3 Betrieb", 0, 4)],
    )
    text = normalise(extract(data, "h.pdf"))
    secs = build_sections(text)
    assert [(s.title, s.level, s.page_start, s.page_end) for s in secs] == [
        ("", 0, 1, 5),
        ("1 Einleitung", 1, 1, 1),
        ("2 Installation", 1, 2, 4),
        ("2.1 Voraussetzungen", 2, 4, 4),
        ("3 Betrieb", 1, 5, 5),
    ]
    assert text.text[secs[3].start :].startswith("2.1 Voraussetzungen")


def test_pdf_without_headings_gets_page_sections():
    data = make_pdf([[LOREM], [LOREM + "Zwei."], [LOREM + "Drei."]])
    text = normalise(extract(data, "plain.pdf"))
    secs = build_sections(text)
    assert [(s.kind, s.title, s.number, s.page_start, s.page_end) for s in secs[1:]] == [
        ("page", "Seite 1", "1", 1, 1), ("page", "Seite 2", "2", 2, 2), ("page", "Seite 3", "3", 3, 3),
    ]
    assert secs[1].start == 0 and secs[3].end == len(text.text)


def test_text_without_pages_or_headings_has_only_root():
    raw = RawDocument(blocks=[Block("Nur Text ohne Struktur.")])
    assert len(build_sections(normalise(raw))) == 1


@pytest.mark.parametrize(
    "line,expected",
    [
        ("3.2 Title", ("section", "3.2")),
        ("3.2. Title", ("section", "3.2")),
        ("4 Ergebnisse", ("chapter", "4")),
        ("§ 4 Title", ("paragraph", "§ 4")),
        ("§4", ("paragraph", "§ 4")),
        ("TOP 5: Title", ("agenda_item", "TOP 5")),
        ("TOP 5 – Title", ("agenda_item", "TOP 5")),
        ("Tagesordnungspunkt 5", ("agenda_item", "TOP 5")),
        ("Agenda item 2: Status of the rollout", ("agenda_item", "Item 2")),
        ("Anlage 2", ("appendix", "Anlage 2")),
        ("Anhang A", ("appendix", "Anhang A")),
        ("Appendix A", ("appendix", "Appendix A")),
        ("Kapitel 3", ("chapter", "Kapitel 3")),
        ("Chapter 3: Setup", ("chapter", "Chapter 3")),
        ("Teil II", ("chapter", "Teil II")),
        ("Part II", ("chapter", "Part II")),
        ("Artikel 3", ("paragraph", "Artikel 3")),
        ("Article 3", ("paragraph", "Article 3")),
        ("3.2 Mio. Euro wurden ausgegeben.", None),
        ("3 weitere Punkte", None),
        ("Teilnehmer 3", None),
        ("Part of the plan", None),
        ("1 " + "Wort " * 30, None),
    ],
)
def test_match_heading(line, expected):
    m = match_heading(line)
    assert (m.kind, m.number) == expected if expected else m is None


def test_docx_heading_styles_make_sections():
    import io

    import docx

    doc = docx.Document()
    doc.add_heading("Einleitung", level=1)
    doc.add_paragraph("Text der Einleitung.")
    doc.add_heading("Ziele", level=2)
    table = doc.add_table(rows=1, cols=2)
    table.cell(0, 0).text, table.cell(0, 1).text = "Ziel", "Termin"
    doc.add_heading("Umsetzung", level=1)
    doc.add_paragraph("TOP 1: kein Heading, weil kleingeschriebener Titel folgt.")
    buf = io.BytesIO()
    doc.save(buf)
    text = normalise(extract(buf.getvalue(), "plan.docx"))
    secs = build_sections(text)
    assert outline(secs) == [
        ("chapter", 1, None, "Einleitung", None),
        ("section", 2, None, "Ziele", "Einleitung"),
        ("chapter", 1, None, "Umsetzung", None),
    ]
    assert "Ziel | Termin" in text.text[secs[2].start : secs[2].end]
