"""Bad input end to end, on documents stored the way ingestion stores them (text, pages and
section tree in the store; no index needed for analysis): a 5,000-page document is refused
as a whole with a message naming its size and the setting, and is analysed and summarised
section by section, also from the chat; a document without dates or sections gets an answer
that says so; nothing crashes."""
from __future__ import annotations

import hashlib

import pytest

from backend.security.access import Scope
from backend.analysis.service import analyze_document
from backend.analysis.summaries import summarize_document, summarize_section
from backend.chat.service import ChatService
from backend.errors import AnalysisError
from backend.retrieval.traces import load_result_dict
from backend.store.models import Document, DocumentVersion, Section

PAGE = ("Der Betreiber muss die Anlage {n} jährlich prüfen lassen. Die Prüfung ist bis zum "
        "{d}. Juni 2031 abzuschließen. Störungen sind unverzüglich der Leitwarte zu melden. ")

EVERYTHING = Scope.everything()


def store_document(rs, filename: str, pages: list[str], chapters: int = 0) -> int:
    """A document with one indexed version: the pages' text, their spans, a root section
    and `chapters` numbered chapters of equal length ("1 Kapitel 1" …)."""
    text, spans, pos = [], [], 0
    for n, body in enumerate(pages, 1):
        text.append(body)
        spans.append([n, pos, pos + len(body)])
        pos += len(body)
    full = "".join(text)
    with rs.store.session() as s:
        d = Document(title=filename.rsplit(".", 1)[0], filename=filename,
                     source_uri=f"test://{filename}", file_type=filename.rsplit(".", 1)[1])
        s.add(d)
        s.flush()
        v = DocumentVersion(document_id=d.id, number=1, filename=filename, text=full,
                            sha256=hashlib.sha256(full.encode()).hexdigest(), status="indexed",
                            is_active=True, page_count=len(pages), language="de",
                            meta={"pages": spans})
        s.add(v)
        s.flush()
        d.active_version_id = v.id
        root = Section(version_id=v.id, ordinal=0, level=0, kind="document", title="",
                       start=0, end=len(full), page_start=1, page_end=len(pages))
        s.add(root)
        s.flush()
        per = len(pages) // chapters if chapters else 0
        for c in range(chapters):
            first, last = c * per, (c + 1) * per - 1
            s.add(Section(version_id=v.id, ordinal=c + 1, parent_id=root.id, level=1,
                          kind="chapter", title=f"{c + 1} Kapitel {c + 1}", number=str(c + 1),
                          start=spans[first][1], end=spans[last][2], page_start=first + 1,
                          page_end=last + 1))
        return d.id


@pytest.fixture
def big(rs):
    """5,000 pages of ~2,000 characters (10 million in all) in 50 chapters of 100 pages."""
    pages = [f"Seite {n}. " + PAGE.format(n=n, d=1 + n % 28) * 10 for n in range(1, 5001)]
    return store_document(rs, "gross.pdf", pages, chapters=50)


def test_a_5000_page_document_is_analysed_by_section(rs, big):
    assert rs.settings.analysis_max_chars < 10_000_000
    with pytest.raises(AnalysisError, match=r"gross\.pdf.*characters.*RAGSCOPE_ANALYSIS_MAX_CHARS"
                                            r".*choose a section"):
        analyze_document(rs, big, scope=EVERYTHING)
    with pytest.raises(AnalysisError, match=r"over the analysis limit.*summarise a section"):
        summarize_document(rs, big, scope=EVERYTHING)
    part = analyze_document(rs, big, section="7", what="deadlines,requirements", scope=EVERYTHING)
    deadlines = part.items("deadlines")
    assert deadlines and all(601 <= i.page <= 700 for i in deadlines)
    assert deadlines[0].fields["due"].startswith("2031-06-")
    assert any("section '7 Kapitel 7' only" in w for w in part.warnings)
    summary = summarize_section(rs, big, "7", length="short", scope=EVERYTHING)
    assert summary.sentences and all(601 <= s.page <= 700 for s in summary.sentences)


def test_the_chat_on_a_5000_page_document(rs, big):
    svc = ChatService(rs)
    sess = svc.create_session()
    msg = svc.ask(sess.uuid, "Fass Kapitel 7 zusammen", scope=EVERYTHING).message  # a section fits the limit
    assert msg.provider == "analysis" and msg.citations["ok"]
    assert all(601 <= s["page"] <= 700 for s in msg.sources)
    # the whole document does not: the question goes to retrieval, and the trace says why
    msg = svc.ask(sess.uuid, "Welche Fristen stehen im Dokument?", scope=EVERYTHING).message
    assert msg.provider == "extractive"
    route = load_result_dict(rs.store, msg.trace_id, viewer=None,
                             is_admin=True)["trace"]["stages"][0]["params"]
    assert route["route"] == "retrieval", route
    assert "RAGSCOPE_ANALYSIS_MAX_CHARS" in route["why"] and "section by section" in route["why"]


def test_documents_without_dates_or_sections(rs):
    doc = store_document(rs, "datumslos.txt", ["Die Anlage muss regelmäßig gewartet werden. "
                                               "Termine nennt dieser Text nicht. " * 20])
    res = analyze_document(rs, doc, scope=EVERYTHING)
    assert res.items("deadlines") == [] and len(res.items("requirements")) == 20
    # no headings: everything belongs to the document root, labelled with the title
    assert {i.section for i in res.items("requirements")} == {"datumslos"}
    svc = ChatService(rs)
    sess = svc.create_session()
    msg = svc.ask(sess.uuid, "Welche Fristen stehen in datumslos.txt?", scope=EVERYTHING).message
    # issue 22: an analysis answer only when it found what was asked; else the passage route
    assert msg.provider == "extractive" and not msg.content.startswith("In „datumslos")
    route = load_result_dict(rs.store, msg.trace_id, viewer=None,
                             is_admin=True)["trace"]["stages"][0]["params"]
    assert "not answered from the analysis" in route["why"] and "0 deadlines" in route["why"]
    msg = svc.ask(sess.uuid, "Fass Kapitel 2 von datumslos.txt zusammen", scope=EVERYTHING).message
    assert msg.provider == "extractive"  # there is no chapter 2: retrieval, with the reason
    route = load_result_dict(rs.store, msg.trace_id, viewer=None,
                             is_admin=True)["trace"]["stages"][0]["params"]
    assert "no section '2'" in route["why"] or "has no section" in route["why"], route


def test_an_empty_document_is_not_offered_to_the_chat(rs, ingestor):
    failed = ingestor.ingest_bytes(b"", "leer.txt")
    assert not failed.ok
    svc = ChatService(rs)
    msg = svc.ask(svc.create_session().uuid, "Was wurde in leer.txt beschlossen?", scope=EVERYTHING).message
    route = load_result_dict(rs.store, msg.trace_id, viewer=None,
                             is_admin=True)["trace"]["stages"][0]["params"]
    assert msg.provider == "extractive" and "no analysable document" in route["why"]
