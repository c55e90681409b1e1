"""The router reproductions of issue 22, asked through the chat as a user would: each test
asserts the answer the user sees (its text, its sources) and the route the trace shows. The
first seven failed before the router fix of issue 22 (commit message says so); the last two
are answer-quality failures behind a correct route (abstention and the extractive answerer,
issue 22 items 4-5), kept as strict expected failures so they report when fixed."""
from __future__ import annotations

import pytest

from backend.security.access import Scope
from backend.chat.service import ChatService
from tests.test_chat import chat_rs  # noqa: F401  (fixture)
from tests.test_chat_analysis_route import _lines, _route

EVERYTHING = Scope.everything()
MINUTES = "protokoll_werkausschuss_2024-03-12.txt"
STEERING = "steering_committee_minutes_2024-04-18.docx"
NOT_FOUND = ("Dazu habe ich in den Dokumenten nichts gefunden.",
             "I found nothing on this in the documents.")

# minutes of a project meeting that is not in the sample corpus: who chairs it is one line,
# the tasks handed out are a table (the "→ 'Leitung: Martin Hellwig.'")
NETZ = """Stadtwerke Birkenau GmbH – Projektrunde Netzleitstelle

Protokoll der Projektrunde Netzleitstelle vom 5. Juni 2024

Ort: Betriebshof, Besprechungsraum 3
Leitung: Martin Hellwig.
Protokoll: Jana Schubert

TOP 1: Stand der Leitsystem-Erneuerung

Herr Hellwig berichtete, dass die Ausschreibung für das neue Netzleitsystem abgeschlossen ist. Der
Zuschlag soll im Juli erteilt werden.

TOP 2: Schulung der Schichtleiter

Die Schulung der Schichtleiter am neuen System beginnt nach der Abnahme im Herbst.


Anlage 1: Aufgabenliste

Nr. | Aufgabe | Verantwortlich | Frist
1 | Vergabevorschlag für das Netzleitsystem vorbereiten | Martin Hellwig | 28. Juni 2024
2 | Schulungsplan für die Schichtleiter erstellen | Jana Schubert | 15. Juli 2024
3 | Notfallkonzept für den Parallelbetrieb abstimmen | Markus Weber | 31. Juli 2024
"""


def _ask(rs, question: str, sess=None):
    svc = ChatService(rs)
    sess = sess or svc.create_session(None)
    return svc.ask(sess.uuid, question, scope=EVERYTHING).message, sess


def _cited_files(msg) -> set[str]:
    return {s["filename"] for s in msg.sources if s.get("cited")}


@pytest.fixture(scope="module")
def netz_rs(tmp_path_factory, shared_embedder):
    """The project meeting's minutes next to the steering committee minutes (whose action
    items are the wrong answer)."""
    from backend.config import Settings
    from backend.ingest.service import Ingestor
    from backend.services.container import Ragscope
    from tests.conftest import SAMPLES

    rs = Ragscope(Settings(data_dir=tmp_path_factory.mktemp("netz") / "var"))
    rs.embedder = shared_embedder
    ing = Ingestor(rs)
    assert ing.ingest_bytes(NETZ.encode(), "protokoll_projektrunde_netzleitstelle.txt").ok
    assert ing.ingest_bytes((SAMPLES / STEERING).read_bytes(), STEERING).ok
    yield rs
    rs.close()


@pytest.mark.parametrize("question", [
    "Welche Beschlüsse wurden in der Sitzung des Werkausschusses am 12. März 2024 gefasst?",
    "Was wurde im Werkausschuss beschlossen?"])
def test_decisions_of_the_named_meeting(chat_rs, question):
    """Was: only the title line of the minutes ("3 topic words besides the cue")."""
    msg, _ = _ask(chat_rs, question)
    assert msg.provider == "analysis", (msg.content, _route(chat_rs, msg))
    assert msg.content.startswith("Beschlüsse")
    assert "2024/17" in msg.content and "2024/18" in msg.content
    assert len(_lines(msg)) >= 3 and _cited_files(msg) == {MINUTES}
    assert _route(chat_rs, msg)["path"] == "extract:decisions"


def test_action_items_and_owners_of_the_steering_committee(chat_rs):
    """Was: the meeting's date sentence."""
    msg, _ = _ask(chat_rs, "What are the action items from the steering committee meeting "
                           "and who owns them?")
    assert msg.provider == "analysis", (msg.content, _route(chat_rs, msg))
    for owner in ("Jonas Albrecht", "Priya Raman", "Sabine Krüger", "Tobias Brandt"):
        assert owner in msg.content
    assert "load test" in msg.content and _cited_files(msg) == {STEERING}
    assert _route(chat_rs, msg)["path"] == "extract:meeting_actions"


def test_tasks_handed_out_in_a_project_meeting(netz_rs):
    """Was: "Leitung: Martin Hellwig." — "vergeben" counted as the topic of the tasks."""
    msg, _ = _ask(netz_rs, "Welche Aufgaben wurden in der Projektrunde Netzleitstelle vergeben?")
    assert msg.provider == "analysis", (msg.content, _route(netz_rs, msg))
    for task in ("Vergabevorschlag für das Netzleitsystem", "Schulungsplan für die Schichtleiter",
                 "Notfallkonzept für den Parallelbetrieb"):
        assert task in msg.content
    assert "Jana Schubert" in msg.content and "Markus Weber" in msg.content
    assert _cited_files(msg) == {"protokoll_projektrunde_netzleitstelle.txt"}


def test_the_document_named_beats_the_previous_answers_document(chat_rs):
    """Was: the annual report's chapter 3 (the document of the previous answer)."""
    first, sess = _ask(chat_rs, "What was the total revenue in 2023?")
    assert "annual_report_2023.pdf" in _cited_files(first)
    msg, _ = _ask(chat_rs, "Fasse Kapitel 3 Betrieb des Lumen-Handbuchs zusammen.", sess)
    head = msg.content.splitlines()[0]
    assert head.startswith("Zusammenfassung von „Lumen Data Gateway 3.2") and "3 Betrieb" in head
    assert _cited_files(msg) == {"lumen_handbuch.pdf"}
    assert _route(chat_rs, msg)["path"] == "summarize_section"


def test_a_url_question_is_not_hijacked_into_a_summary(chat_rs):
    """Was: a summary of an unrelated status report, the question ignored. The page cannot
    be fetched here (example.org does not resolve in tests; the fetched case is in
    tests/test_question_url.py) and is not in the documents, so the answer says nothing was
    found and names the URL; the trace notes the URL."""
    msg, _ = _ask(chat_rs, "Fasse diese Seite zusammen: https://example.org/info.html und nenne "
                           "die maximale Fahrzeughöhe")
    assert msg.provider != "analysis" and not msg.content.startswith("Zusammenfassung")
    assert msg.content in NOT_FOUND
    assert "https://example.org/info.html was not used" in (msg.notice or ""), msg.notice
    route = _route(chat_rs, msg)
    assert route["path"] == "url" and route["url"] == "https://example.org/info.html"
    assert "URL in the question" in route["why"]


def test_compare_within_one_document_is_no_document_comparison(chat_rs):
    """Was: "Comparison of “X” and “X” (topic overlap 7 %…)" — the word alone triggered it."""
    msg, _ = _ask(chat_rs, "How do the results of the water supply compare to those of "
                           "district heating in the annual report?")
    assert msg.provider != "analysis"
    assert not msg.content.startswith(("Comparison of", "Vergleich von"))
    route = _route(chat_rs, msg)
    assert route["path"] == "passage" and "alone" in route["why"]


@pytest.mark.parametrize("question", [
    "What was the share price of Stadtwerke Birkenau at the end of 2023?",
    "Wer hat gegen den Beschluss 2024/17 gestimmt?"])
def test_fact_questions_take_the_passage_route(chat_rs, question):
    msg, _ = _ask(chat_rs, question)
    assert msg.provider == "extractive" and _route(chat_rs, msg)["path"] == "passage"


@pytest.mark.xfail(strict=True, reason="abstention on near misses: issue 22 item 4, not this "
                                       "branch (the route is right: passage)")
def test_share_price_is_not_in_the_documents(chat_rs):
    """Was and is: an unrelated water-price sentence, cited."""
    msg, _ = _ask(chat_rs, "What was the share price of Stadtwerke Birkenau at the end of 2023?")
    assert msg.content in NOT_FOUND


def test_who_voted_against_a_decision(chat_rs):
    """Was: the decision restated. Now the vote line below it leads, its count of votes
    against in bold ("nicht namentlich" is not in the minutes, so it is not said either)."""
    msg, _ = _ask(chat_rs, "Wer hat gegen den Beschluss 2024/17 gestimmt?")
    assert msg.content.startswith("Abstimmung: 5 Ja-Stimmen, **1 Gegenstimme**, 0 Enthaltungen."), \
        msg.content
    assert "Beschluss 2024/17" in msg.content and not msg.citations["uncited_sentences"]
