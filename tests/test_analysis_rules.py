"""The building blocks of the analysis layer, without a store: date and duration
normalisation (offline), sentence units with exact offsets, bad input (empty text, no
sections, no dates, 5,000 pages) and the intent recogniser for the chat."""
from __future__ import annotations

import socket
from datetime import date

import pytest

from backend.analysis.dates import document_date, find_dates, find_durations, resolve_relative
from backend.analysis.extractors import EXTRACTORS, NAMES, run_extractor
from backend.answer.intents import DocCandidate, explain, has_cue, recognise
from backend.analysis.source import source_from_rows, split_sentences


def _src(text: str, rows: list[dict] | None = None, **meta):
    return source_from_rows(text, rows if rows is not None else [
        dict(id=None, parent=None, level=0, kind="document", title="", start=0, end=len(text))],
        **meta)


@pytest.mark.parametrize("text,iso", [
    ("am 12. März 2024", "2024-03-12"), ("on 18 April 2024", "2024-04-18"),
    ("April 18, 2024", "2024-04-18"), ("bis 31.07.2024", "2024-07-31"),
    ("Last reviewed: 2024-03-12.", "2024-03-12"), ("bis Ende Februar 2024", "2024-02-29"),
    ("im vierten Quartal 2024", "2024-10/2024-12"), ("Q4 2024", "2024-10/2024-12"),
    ("Saturday, 8 June 2024, 06:00", "2024-06-08"), ("im Jahr 2023", "2023"),
    ("von April 2024", "2024-04"), ("spring 2024", "2024-03/2024-05"),
])
def test_absolute_dates_become_iso(text, iso):
    assert [d.iso for d in find_dates(text)] == [iso]


def test_dates_without_a_year_take_the_documents_year_and_ranges_are_marked():
    ds = find_dates("Reporting period: 1 May to 31 May 2024.", date(2024, 6, 7))
    assert [(d.iso, d.range_end) for d in ds] == [("2024-05-01", False), ("2024-05-31", True)]
    assert [d.iso for d in find_dates("will start work in May", date(2024, 4, 18))] == ["2024-05"]
    assert find_dates("will start work in May", None) == []  # no year: not resolvable


def test_no_false_dates_in_numbers_versions_and_places():
    for text in ("Beschluss 2024/17", "Version 3.2.0", "Python 3.11", "in Mainz", "1.862.350 EUR",
                 "port 8443", "Abstimmung: 5 Ja-Stimmen"):
        assert find_dates(text, date(2024, 1, 1)) == [], text


def test_relative_dates_resolve_against_the_document_date_offline(monkeypatch):
    def no_network(*a, **k):
        raise AssertionError("dateparser tried to reach the network")

    monkeypatch.setattr(socket.socket, "connect", no_network)
    ref = date(2024, 4, 18)  # a Thursday
    assert resolve_relative("next Friday", ref) == date(2024, 4, 19)
    assert resolve_relative("in zwei Wochen", ref) == date(2024, 5, 2)
    assert resolve_relative("end of the month", ref) == date(2024, 4, 30)
    assert [d.iso for d in find_dates("bis Ende des Monats", ref)] == ["2024-04-30"]
    assert find_dates("next Friday", None)[0].iso is None  # found, but no date to resolve from


@pytest.mark.parametrize("text,iso", [
    ("spätestens innerhalb von 24 Stunden", "PT24H"), ("within one hour", "PT1H"),
    ("innerhalb von vier Wochen", "P4W"), ("for a maximum of 12 months", "P12M"),
    ("10 Jahre nach Ende", "P10Y"), ("innerhalb von zehn Werktagen", "P10D"),
    ("Der Link ist zwei Stunden gültig.", "PT2H"),
])
def test_time_limits_become_iso_durations(text, iso):
    assert [d.iso for d in find_durations(text)] == [iso]


def test_an_ordinal_is_not_a_duration():
    assert list(find_durations("The proposal to add a second charging row was rejected.")) == []
    assert [d.iso for d in find_durations("within a second of the alarm, 30 seconds later")] \
        == ["PT30S"]


def test_document_date_from_file_name_label_or_first_date():
    assert document_date("protokoll_2024-03-12.txt", "irrelevant 1. Mai 2025") == date(2024, 3, 12)
    assert document_date("r.docx", "Reporting period: 1 May to 31 May 2024. Report date: 7 June 2024."
                         ) == date(2024, 6, 7)
    assert document_date("p.docx", "Version 2.0, Stand: 1. März 2024. Freigegeben am 26. Februar "
                         "2024.") == date(2024, 3, 1)
    assert document_date("x.txt", "no date at all") is None


def test_sentences_keep_exact_offsets_and_german_ordinals():
    text = ("Die nächste Sitzung findet am 7. Mai 2024 statt. Frau Dr. Vogelsang sagte zu, "
            "bis zum 30. April 2024 vorzulegen. Siehe Art. 28 DSGVO. Done.")
    spans = list(split_sentences(text, 0, len(text)))
    parts = [text[a:b] for a, b in spans]
    assert parts == ["Die nächste Sitzung findet am 7. Mai 2024 statt.",
                     "Frau Dr. Vogelsang sagte zu, bis zum 30. April 2024 vorzulegen.",
                     "Siehe Art. 28 DSGVO.", "Done."]


def test_every_item_quotes_the_text_at_its_offsets():
    text = ("# Minutes\n\nDecision: The board approves the budget. Vote: unanimous.\n\n"
            "Action: Mia Roth will send the plan by 3 June 2024.\n")
    rows = [dict(id=None, parent=None, level=0, kind="document", title="", start=0, end=len(text)),
            dict(id=7, parent=0, level=1, kind="chapter", title="Minutes", start=0, end=len(text))]
    src = _src(text, rows, filename="m_2024-05-01.md")
    for name in NAMES:
        for it in run_extractor(name, src):
            assert src.text[it.start:it.end] == it.text
            assert it.section_id == 7 and it.section == "Minutes"


# ---- bad input -----------------------------------------------------------------------------


def test_empty_text_gives_empty_results_not_an_error():
    src = _src("")
    assert all(run_extractor(n, src) == [] for n in NAMES)


def test_text_without_sections_or_dates_is_analysed_from_the_root():
    text = ("Die Anlage muss jährlich geprüft werden. Der Betreiber darf nur geschultes "
            "Personal einsetzen. Es gibt keine Termine in diesem Text.")
    src = _src(text)
    assert run_extractor("deadlines", src) == []
    reqs = run_extractor("requirements", src)
    assert len(reqs) == 2 and all(r.section == "(document)" for r in reqs)


def test_a_5000_page_document_is_analysed_without_a_crash():
    pages, rows, parts, pos = [], [], [], 0
    rows.append(dict(id=None, parent=None, level=0, kind="document", title="", start=0, end=0))
    for n in range(1, 5001):
        body = (f"{n} Abschnitt {n}\n\nDer Betreiber muss die Anlage {n} prüfen. "
                f"Frist: {1 + n % 28}. Juni 2030.\n\n")
        rows.append(dict(id=None, parent=0, level=1, kind="chapter", title=f"{n} Abschnitt {n}",
                         number=str(n), start=pos, end=pos + len(body), page_start=n, page_end=n))
        pages.append((n, pos, pos + len(body)))
        parts.append(body)
        pos += len(body)
    text = "".join(parts)
    rows[0]["end"] = len(text)
    src = _src(text, rows, pages=pages, filename="gross.pdf")
    deadlines = run_extractor("deadlines", src)
    assert len(deadlines) == 5000 and deadlines[-1].page == 5000
    assert deadlines[0].fields["due"] == "2030-06-02"
    assert len(run_extractor("requirements", src)) == 5000


# ---- intents -------------------------------------------------------------------------------

DOCS = [DocCandidate(13, "Stadtwerke Birkenau GmbH – Werkausschuss",
                     "protokoll_werkausschuss_2024-03-12.txt", "minutes"),
        DocCandidate(15, "Digitalisation Programme – Steering Committee Minutes",
                     "steering_committee_minutes_2024-04-18.docx", "minutes"),
        DocCandidate(9, "Lumen Data Gateway 3.2 – Installations- und Betriebshandbuch",
                     "lumen_handbuch.pdf", "manual"),
        DocCandidate(4, "Datenschutzrichtlinie der Stadtwerke Birkenau GmbH",
                     "datenschutzrichtlinie.docx", "policy")]


@pytest.mark.parametrize("question,action,extractors,section,document", [
    # the seed's examples
    ("Welche offenen Punkte gab es?", "extract", ("meeting_actions",), None, None),
    ("Was wurde beschlossen?", "extract", ("decisions",), None, None),
    ("Welche Fristen stehen im Protokoll?", "extract", ("deadlines",), None, None),
    ("Fass Kapitel 2 zusammen", "summarize", (), "2", None),
    ("Fass das erste Kapitel zusammen", "summarize", (), "1", None),
    ("Was hat sich zwischen Version 1 und 2 geändert?", "compare_versions", (), None, None),
    # more phrasings, German and English
    ("What was decided under agenda item 3 of the steering committee meeting?", "extract",
     ("decisions",), "Agenda item 3", 15),
    ("Was wurde unter TOP 4 der Werkausschusssitzung beschlossen?", "extract", ("decisions",),
     "TOP 4", 13),
    ("Who is responsible for which action items in the steering committee minutes?", "extract",
     ("meeting_actions",), None, 15),
    ("Worum geht es in Kapitel 2.2 des Lumen-Handbuchs?", "summarize", (), "2.2", 9),
    ("Give me a short summary of the Datenschutzrichtlinie", "summarize", (), None, 4),
    ("Which environment variables does the Lumen manual mention?", "extract", ("config_keys",),
     None, 9),
    ("What changed in the data protection policy between version 1 and version 2?",
     "compare_versions", (), None, 4),
    ("Where else is the Eichberg reservoir mentioned?", "cross_reference", (), None, None),
])
def test_intents_of_analysis_questions(question, action, extractors, section, document):
    it = recognise(question, DOCS)
    assert it is not None and it.action == action, it
    assert it.extractors == extractors and it.section == section and it.document == document
    assert it.reason


def test_intent_details():
    assert recognise("Welche offenen Punkte gab es?").status == "open"
    assert recognise("Was hat sich zwischen Version 1 und 2 geändert?").versions == (1, 2)
    assert recognise("Give me a short summary").length == "short"
    assert recognise("Fasse das Protokoll ausführlich zusammen", DOCS).length == "long"
    assert recognise("Welche Fristen stehen im Protokoll?", DOCS).doc_type == "minutes"


@pytest.mark.parametrize("question", [  # factual questions of the retrieval goldenset
    "Welche Portnummer verwendet das Lumen Data Gateway standardmäßig?",
    "Welchen Standardwert hat gateway.max_connections?",
    "What is the rate limit of the REST API and what happens if I exceed it?",
    "How fast do we have to fix a vulnerability rated 9.5 on the CVSS scale?",
    "Wie lange dauert es ungefähr, bis mein Haus Fernwärme bekommt?",
    "Welche Dokumente gibt es zum Datenschutz?",
    "What was the root cause of incident INC-2024-031?",
    "",
])
def test_plain_questions_have_no_analysis_intent(question):
    assert recognise(question, DOCS) is None


def test_registry_describes_every_extractor():
    for name, spec in EXTRACTORS.items():
        assert spec.name == name and spec.version and spec.fields and spec.description


@pytest.mark.parametrize("question,why", [
    # questions after one fact or one item: passages answer them (the answer benchmark's kind)
    ("Wann ist die Frist für Löschungen?", "after one item"),
    ("Which configuration key replaces gateway.maxConn?", "after one item"),
    ("Who is responsible for the load test with 1,500 simulated connections?", "specific"),
    ("Bis wann muss der Förderantrag für den Fernwärmeanschluss gestellt werden?", "specific"),
    ("What changed in version 3.2.0?", "no analysis wording"),  # a release, not a version
    ("Wie lange vor ihrem Wirksamwerden werden Änderungen der Datenschutzrichtlinie mitgeteilt?",
     "no analysis wording"),
])
def test_specific_questions_stay_with_retrieval(question, why):
    intent, reason = explain(question, DOCS)
    assert intent is None and why in reason, (intent, reason)


def test_topics_comparisons_and_changes_of_a_named_document():
    it = recognise("Was wurde zum Wasserpreis beschlossen?", DOCS)
    assert (it.action, it.extractors, it.topic, it.document) == (
        "extract", ("decisions",), "Wasserpreis", None)
    assert recognise("What was decided about TLS?").topic == "TLS"
    assert recognise("Which items are still open?").status == "open"
    it = recognise("Was unterscheidet die Datenschutzrichtlinie vom Lumen-Handbuch?", DOCS)
    assert (it.action, {it.document, it.document_b}) == ("compare_documents", {4, 9})
    it = recognise("Was hat sich im Werkausschuss-Protokoll geändert?", DOCS)
    assert (it.action, it.document, it.versions) == ("compare_versions", 13, (None, None))
    assert recognise("Where else is the Eichberg reservoir mentioned?").topic == \
        "Eichberg reservoir"
    assert has_cue("Welche Risiken gibt es?") and not has_cue("Welche Portnummer?")


def test_what_was_or_is_not_needed_is_no_requirement():
    """"Eine Abstimmung war nicht erforderlich." was listed as a requirement."""
    text = ("Eine Abstimmung war nicht erforderlich. Eine Genehmigung ist nicht erforderlich. "
            "No vote was required. Die Pumpe muss bis Juni geprüft werden. Für den Umbau ist "
            "eine Genehmigung erforderlich. Der Betreiber muss berichten; eine Abstimmung war "
            "nicht erforderlich.")
    reqs = [r.text for r in run_extractor("requirements", _src(text))]
    assert reqs == ["Die Pumpe muss bis Juni geprüft werden.",
                    "Für den Umbau ist eine Genehmigung erforderlich.",
                    "Der Betreiber muss berichten; eine Abstimmung war nicht erforderlich."]


# ---- issue 22: one keyword is no intent, a URL is no summary, the name decides -------------

@pytest.mark.parametrize("question,why", [
    ("Gibt es eine Zusammenfassung der Kosten für den Hochbehälter?", "without a request"),
    ("How long did the outage last according to the summary of the incident report?",
     "without a request"),
    ("How do the results of the water supply compare to those of district heating?", "alone"),
    ("Fasse diese Seite zusammen: https://example.org/info.html und nenne die maximale "
     "Fahrzeughöhe", "URL in the question (https://example.org/info.html)"),
])
def test_a_single_keyword_or_a_url_is_no_intent(question, why):
    intent, reason = explain(question, DOCS)
    assert intent is None and why in reason, (intent, reason)


def test_list_questions_keep_their_verbs_and_dates_out_of_the_topic():
    it = recognise("Welche Beschlüsse wurden in der Sitzung des Werkausschusses am 12. März 2024 "
                   "gefasst?", DOCS)
    assert (it.action, it.extractors, it.document, it.topic) == ("extract", ("decisions",), 13,
                                                                 None)
    it = recognise("Which action items came out of the steering committee meeting?", DOCS)
    assert (it.extractors, it.document, it.topic) == (("meeting_actions",), 15, None)


def test_the_generic_word_of_a_name_breaks_a_tie():
    docs = DOCS + [DocCandidate(16, "Runbook: Lumen Data Gateway failover and recovery",
                                "runbook_gateway_failover.md", "runbook_or_ops_doc")]
    it = recognise("Fasse Kapitel 3 Betrieb des Lumen-Handbuchs zusammen.", docs)
    assert (it.action, it.section, it.document) == ("summarize", "3", 9)
