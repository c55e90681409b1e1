"""The topic of a list question within its document (issue 22, routing on documents nobody
tuned for; backend/answer/topic.py): the verbs of the question and the words that name the
document are no topic when no item has them, across languages; the router does not count
such verbs as topic words; inventory questions narrow by the documents' language and kind.
On the sample corpus the chat answers such questions from the analysis."""
from __future__ import annotations

from pathlib import Path

import pytest

from backend.analysis.types import Item
from backend.answer import topic
from backend.answer.intents import explain
from backend.retrieval import dictionary
from backend.retrieval.query import parse_query
from tests.test_chat import chat_rs  # noqa: F401  (fixture)

FIXTURE = Path(__file__).parent / "fixtures" / "dictionary" / "ding_topics.txt"


@pytest.fixture(scope="module")
def d():
    return dictionary.load(FIXTURE)


def _item(text: str, section: str = "TOP 2") -> Item:
    return Item("decisions", text, 0, len(text), None, section, [section], None, 0.9, [])


def test_the_verb_entries_give_every_form_of_both_languages(d):
    assert {"nehmen", "genommen", "nimmt", "nahm", "take", "taken", "took", "takes"} <= d.verbs
    assert {"fasste", "gefasst", "impose", "imposed", "auferlegt"} <= d.verbs
    assert "ansicht" not in d.verbs and "project" not in d.verbs
    # a capitalised word is a noun or a name, not a verb ("Treffen", "Take")
    assert dictionary.is_verb_form(d, "take") and not dictionary.is_verb_form(d, "Take")
    # a verb that also translates a German noun is no mere phrasing: "take" (Ansicht), "rent"
    assert not dictionary.is_phrasing_verb(d, "take") and not dictionary.is_phrasing_verb(d, "rent")
    assert dictionary.is_phrasing_verb(d, "fasste") and dictionary.is_phrasing_verb(d, "impose")
    assert not dictionary.is_verb_form(None, "take")  # without a dictionary, nothing is


MINUTES = ("HARBOURSIDE COMMUNITY HOUSING TRUST\nMinutes of the Board of Trustees meeting "
           "held on 14 May 2025\n\nPresent: Margaret Okafor (Chair)\n")
ITEMS = [_item("DECISION 2025/15: The Board approved a rent increase of 2.7 %."),
         _item("DECISION 2025/16: The Board approved the planning application for Cooper's Yard.")]


def test_a_verb_no_item_has_is_the_questions_phrasing(d):
    t = topic.refine("take", ITEMS, title="HARBOURSIDE", filename="board_minutes.txt",
                     text=MINUTES, d=d)
    assert t.words == [] and t.text is None
    assert t.dropped == [("take", "is a verb of the question, in no item")]
    # a verb an item has as written stays: "rent" decisions are the rent increase only
    t = topic.refine("rent", ITEMS, title="HARBOURSIDE", filename="board_minutes.txt",
                     text=MINUTES, d=d)
    assert t.words == ["rent"]
    assert [i.text[:18] for i in ITEMS if topic.matches(t, i)] == ["DECISION 2025/15: "]


def test_words_that_name_the_document_are_no_topic_in_either_language(d):
    text = "Projektrunde Glasfaser Riedland – Protokoll vom 7. Mai 2025\n\n1. Stand\n"
    items = [_item("A1: Genehmigung beim Landratsamt nachfassen", "5. Offene Punkte")]
    t = topic.refine("fibre project Mai", items, title="Projektrunde Glasfaser Riedland",
                     filename="projektrunde_glasfaser.md", text=text, d=d)
    assert t.words == [] and dict(t.dropped) == {
        "fibre": "names the document", "project": "names the document",
        "Mai": "is a month or year, in no item"}
    # without the dictionary the English words name nothing: they stay, nothing matches
    t = topic.refine("fibre project", items, title="Projektrunde Glasfaser Riedland",
                     filename="projektrunde_glasfaser.md", text=text, d=None)
    assert t.words == ["fibre", "project"]


def test_a_part_of_the_document_is_not_its_name(d):
    """Release notes that cover several versions: "Version 3.2.0" is their first section,
    not their name; a question about 3.2.0's known issues keeps its topic."""
    text = ("# Lumen release notes\n\nThe changes of each version.\n\n## Version 3.2.0\n\n"
            "### Known issues\n\n- The promote command can hang.\n")
    items = [_item("The promote command can hang.", "Known issues")]
    t = topic.refine("3.2.0", items, title="Lumen release notes", filename="release_notes.md",
                     text=text, d=d, end=text.index("## Version"))
    assert t.words == ["3.2.0"] and not t.dropped


def test_a_topic_the_items_lack_stays_and_matches_nothing(d):
    t = topic.refine("Parkhaus", ITEMS, title="HARBOURSIDE", filename="board_minutes.txt",
                     text=MINUTES, d=d)
    assert t.words == ["Parkhaus"] and not any(topic.matches(t, i) for i in ITEMS)


def test_a_translated_topic_word_matches_an_item_in_the_other_language(d):
    items = [_item("Die Miete steigt um 2,7 %."), _item("Der Bauantrag wird gestellt.")]
    t = topic.refine("Miete", items, title="x", filename="x.txt", text="x", d=d)
    assert [i.text for i in items if topic.matches(t, i)] == ["Die Miete steigt um 2,7 %."]
    rents = topic.refine("rents", items, title="x", filename="x.txt", text="x", d=d)
    assert [i.text for i in items if topic.matches(rents, i)] == ["Die Miete steigt um 2,7 %."]


def test_phrasing_verbs_do_not_make_a_list_question_specific(d):
    q = "Which obligations does the Benutzungsordnung impose on users?"
    without, why = explain(q)
    assert without is None and "specific question" in why
    with_verbs, why = explain(q, verbs=lambda w: dictionary.is_phrasing_verb(d, w))
    assert with_verbs is not None and with_verbs.extractors == ("requirements",), why


@pytest.mark.parametrize("question,types,topic_,language", [
    ("Which of the English-language documents are minutes of a board meeting?",
     ["meeting_minutes", "minutes"], "a board meeting", "en"),
    ("Welche englischsprachigen Dokumente sind Produktdatenblätter?", [], "Produktdatenblätter",
     "en"),
    ("Welche der deutschsprachigen Dokumente sind Richtlinien für Beschäftigte?",
     ["policy", "contract"], "Beschäftigte", "de"),
    ("Which German documents are there?", [], "", "de"),
    ("Which documents name Fenwick?", [], "Fenwick", ""),
    ("Which documents are there?", [], "", ""),
])
def test_inventory_questions_name_language_and_kind(question, types, topic_, language):
    q = parse_query(question)
    assert q.inventory, question
    assert (q.inventory_types, q.inventory_topic, q.inventory_language) == (types, topic_,
                                                                           language)


# ---- on the sample corpus -------------------------------------------------------------------

def test_inventory_by_language_lists_only_documents_in_that_language(sample_rs):
    from backend.retrieval.engine import Retriever
    from backend.retrieval.types import RetrievalParams
    from backend.security.access import Scope

    def listed(question: str) -> set[str]:
        res = Retriever(sample_rs).retrieve(question, RetrievalParams(collections=["samples"]),
                                            scope=Scope.everything())
        assert res.mode == "inventory", question
        return {x.filename for x in res.documents}

    assert listed("Welche englischsprachigen Richtlinien gibt es?") == {
        "information_security_policy.odt"}
    assert listed("Which of the German-language documents are policies?") == {
        "benutzungsordnung_kundenportal.pdf", "datenschutzrichtlinie.docx"}
    assert listed("Which English documents are minutes?") == {
        "steering_committee_minutes_2024-04-18.docx"}


@pytest.mark.parametrize("question,doc,dropped", [
    ("Which decisions did the steering committee take at its meeting on 18 April 2024?",
     "steering_committee_minutes_2024-04-18.docx", "take"),
    ("Welche Beschlüsse fasste der Werkausschuss?", "protokoll_werkausschuss_2024-03-12.txt",
     "fasste"),
])
def test_the_chat_answers_a_list_question_phrased_with_a_verb_from_the_analysis(
        chat_rs, question, doc, dropped):
    from backend.chat.service import ChatService
    from backend.retrieval.traces import load_result_dict
    from backend.security.access import Scope

    svc = ChatService(chat_rs)
    sess = svc.create_session(None)
    msg = svc.ask(sess.uuid, question, scope=Scope.everything()).message
    stages = {s["name"]: s for s in load_result_dict(chat_rs.store, msg.trace_id, viewer=None,
                                                     is_admin=True)["trace"]["stages"]}
    assert stages["route"]["params"]["path"] == "extract:decisions", stages["route"]
    assert msg.provider == "analysis" and {s["filename"] for s in msg.sources} == {doc}
    assert dropped in {x["word"] for x in stages["analysis"]["params"]["topic_dropped"]}
    assert len(msg.content.splitlines()) >= 3  # a heading and the decisions, each cited


def test_a_topic_no_decision_has_goes_to_the_passages(chat_rs):
    from backend.chat.service import ChatService
    from backend.retrieval.traces import load_result_dict
    from backend.security.access import Scope

    svc = ChatService(chat_rs)
    sess = svc.create_session(None)
    msg = svc.ask(sess.uuid, "Welche Beschlüsse fasste der Werkausschuss zum Parkhaus?",
                  scope=Scope.everything()).message
    route = load_result_dict(chat_rs.store, msg.trace_id, viewer=None,
                             is_admin=True)["trace"]["stages"][0]["params"]
    assert route["path"] == "passage" and "none about 'Parkhaus'" in route["why"], route


# ---- sections by title, documents by whole name parts ----------------------------------------

@pytest.mark.parametrize("question,section", [
    ("Summarise the section on working from abroad in Ostrander & Paige's remote working "
     "policy.", "working from abroad"),
    ("Fasse den Abschnitt über Abfälle der Laborordnung zusammen.", "Abfälle"),
    ("What does the section on mobile working say?", "mobile working"),
    ("Fass Kapitel 2 zusammen", "2"),
])
def test_a_section_is_named_by_its_title(question, section):
    from backend.answer.intents import _section

    assert _section(question) == section


def test_a_name_word_in_the_middle_of_a_question_word_names_no_document():
    """"round" (from an untitled note's first line "went round the table") is no part of
    "groundbreaking"; "Werkausschuss" is one of "Werkausschusssitzung"."""
    from backend.answer.intent_documents import DocCandidate, named_documents

    docs = [DocCandidate(1, "infra sync notes, went round the table", "infra_sync.txt"),
            DocCandidate(2, "Werkausschuss Protokoll", "protokoll_werkausschuss.txt")]
    assert named_documents("Summarise the press release about the groundbreaking.", docs) == []
    assert [d.id for d in named_documents("Was wurde in der Werkausschusssitzung beschlossen?",
                                          docs)] == [2]


def test_the_chat_summarises_a_section_named_by_its_title(chat_rs):
    from backend.chat.service import ChatService
    from backend.security.access import Scope

    svc = ChatService(chat_rs)
    sess = svc.create_session(None)
    msg = svc.ask(sess.uuid, "Summarise the section on mobile working in the information "
                  "security policy.", scope=Scope.everything()).message
    assert msg.provider == "analysis", msg.content
    assert msg.content.splitlines()[0].startswith("Summary of “Information Security Policy” – "
                                                  "8 Mobile Working"), msg.content


def test_the_list_items_of_a_decisions_section_are_decisions(tmp_path):
    """"## 4. Entscheidungen" with bullet points: each point is a decision (the minutes of a
    project meeting say no "Beschluss:"; issue 22); the list marker is not quoted."""
    from backend.analysis.extract_decisions import extract_decisions
    from backend.analysis.source import source_from_file
    from backend.answer.compose import item_line

    f = tmp_path / "projektrunde_2025-05-07.md"
    f.write_text("# Projektrunde Glasfaser – Protokoll vom 7. Mai 2025\n\n## 3. Bericht\n\n"
                 "Henrik berichtet vom Stand der Arbeiten.\n\n## 4. Entscheidungen\n\n"
                 "- Die Infoveranstaltung in Moosach wird durchgeführt.\n"
                 "- Für das Spleißen wird ab Juni ein drittes Team beauftragt.\n\n"
                 "## 5. Offene Punkte\n\n- Flyer für Moosach drucken\n", encoding="utf-8")
    found = extract_decisions(source_from_file(f))
    lines = [item_line(n, i, 1, "de") for n, i in enumerate(found, 1)]
    assert [x.split(" (")[0] for x in lines] == [
        "1. Die Infoveranstaltung in Moosach wird durchgeführt.",
        "2. Für das Spleißen wird ab Juni ein drittes Team beauftragt."], lines
    assert all(x.endswith("– 4. Entscheidungen [1]") for x in lines), lines
