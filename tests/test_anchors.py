"""Anchor words (backend/retrieval/anchors.py): a rare name of the question lifts the passages
of the documents that name it, also the passages that do not repeat the name — the case of an
English question about a German annual report whose member count stands pages after the
cooperative's name."""
from __future__ import annotations

import pytest

from backend.ingest.records import IngestItem
from backend.retrieval.anchors import candidates
from backend.retrieval.engine import Retriever
from backend.retrieval.types import RetrievalParams
from backend.security.access import Scope

FILLER = " ".join(f"Absatz {i}: Die Verwaltung berichtet über laufende Vorgänge und Termine."
                  for i in range(40))
GERMAN = ("# Geschäftsbericht 2024 der Wohnungsgenossenschaft Talblick eG\n\n"
          "Die Genossenschaft blickt auf ein ruhiges Jahr zurück.\n\n" + FILLER + "\n\n"
          "## Mitglieder\n\nZum 31. Dezember 2024 zählte die Genossenschaft 4.812 Mitglieder "
          "mit 9.930 Geschäftsanteilen.\n\nKontakt: Stadtforum Nord.\n")
ENGLISH = ("# Harbourside Trust board minutes\n\nThe board met on 14 May 2025. Members of the "
           "housing committee reported that membership at the end of the year was stable; the "
           "board thanked the members of the housing cooperative forum. Contact: Stadtforum Nord.\n")
QUESTION = "How many members did the Talblick housing cooperative have at the end of 2024?"


@pytest.fixture
def corpus(ingestor):
    items = [IngestItem("geschaeftsbericht_talblick.md", data=GERMAN.encode(),
                        source_uri="test://talblick"),
             IngestItem("harbourside_minutes.md", data=ENGLISH.encode(),
                        source_uri="test://harbourside")]
    outs = ingestor.ingest_many(items, collection="coop")
    return ingestor.rs, {o.filename: o.document_id for o in outs}


def test_candidates_are_names_and_codes_not_the_first_word_stop_words_or_years():
    assert candidates(QUESTION) == ["Talblick"]
    assert candidates("What is the sound power level of the Calora AW12 heat pump?") == \
        ["Calora", "AW12"]
    assert candidates("Wer leitet die Projektrunde Riedland im Jahr 2025?") == \
        ["Projektrunde", "Riedland", "Jahr"]
    assert candidates("How wide will the RS 3 cycle superhighway be?") == ["RS"]  # a code
    assert candidates("Who owns task A4 of the Q3 plan?") == ["A4", "Q3"]
    assert candidates("Is it so in Berlin?") == ["Berlin"]  # "so", "in": not codes
    assert candidates("") == []


def test_a_name_lifts_the_passage_of_its_document_that_does_not_repeat_it(corpus):
    rs, ids = corpus
    retr = Retriever(rs)
    params = dict(collections=["coop"], k=3)
    off = retr.retrieve(QUESTION, RetrievalParams(anchor_boost=0, **params),
                        scope=Scope.everything())
    on = retr.retrieve(QUESTION, RetrievalParams(**params), scope=Scope.everything())
    assert off.hits[0].filename == "harbourside_minutes.md"  # the ordinary words win without it
    assert on.hits[0].filename == "geschaeftsbericht_talblick.md"
    assert "harbourside_minutes.md" not in [h.filename for h in on.hits[:2]]
    assert any("4.812 Mitglieder" in h.text for h in on.hits[:2])
    stage = next(s for s in on.trace.stages if s.name == "anchors")
    assert stage.params["anchors"] == {"Talblick": [ids["geschaeftsbericht_talblick.md"]]}
    assert stage.params["boosted"] >= 1


def test_a_word_in_more_documents_than_the_cap_or_in_none_is_no_anchor(corpus, monkeypatch):
    from backend.retrieval import anchors

    monkeypatch.setattr(anchors, "MAX_DOCUMENTS", 1)
    rs, _ = corpus
    res = Retriever(rs).retrieve("How many members did the Zzyzx Stadtforum have?",
                                 RetrievalParams(collections=["coop"]), scope=Scope.everything())
    stage = next(s for s in res.trace.stages if s.name == "anchors")
    assert stage.params["anchors"] == {}  # "Stadtforum" is in both documents, "Zzyzx" in none
    assert stage.params["boosted"] == 0


def test_semantic_only_does_not_consult_the_keyword_index(corpus):
    rs, _ = corpus
    res = Retriever(rs).retrieve(QUESTION, RetrievalParams(collections=["coop"],
                                                           policy="semantic_only"),
                                 scope=Scope.everything())
    assert not any(s.name == "anchors" for s in res.trace.stages)


def test_a_word_the_dictionary_knows_is_a_noun_not_a_name():
    from backend.retrieval import dictionary
    from tests.test_crosslingual import FIXTURE

    d = dictionary.load(FIXTURE)  # "Mitarbeiter :: employee; staff member"
    assert dictionary.knows(d, "Mitarbeiter") and dictionary.knows(d, "employees")
    assert not dictionary.knows(d, "Talblick")
    question = "Wie viele Mitarbeiter hat die Wohnungsgenossenschaft Talblick im Jahr 2024?"
    assert candidates(question, lambda w: dictionary.knows(d, w)) == \
        ["Wohnungsgenossenschaft", "Talblick", "Jahr"]
    assert candidates("Which Mitarbeiter of Riedland own task A4?",
                      lambda w: dictionary.knows(d, w)) == ["Riedland", "A4"]


def test_when_every_hit_is_of_a_named_document_the_scores_stay_as_they_are(corpus):
    rs, ids = corpus
    only = RetrievalParams(collections=["coop"], document_ids=[ids["geschaeftsbericht_talblick.md"]])
    on = Retriever(rs).retrieve(QUESTION, only, scope=Scope.everything())
    off = Retriever(rs).retrieve(QUESTION, only.model_copy(update={"anchor_boost": 0}),
                                 scope=Scope.everything())
    stage = next(s for s in on.trace.stages if s.name == "anchors")
    assert stage.params["anchors"] == {} and stage.params["boosted"] == 0
    assert [(h.chunk_id, h.score) for h in on.hits] == [(h.chunk_id, h.score) for h in off.hits]


SECTION = ("Die Wärmepumpe Calora AW12 arbeitet mit dem Kältemittel R290 und wird vom "
           "Fachbetrieb eingerichtet. ")
MANUAL = ("# Betriebsanleitung Wärmepumpe Calora AW12\n\nDie Calora AW12 ist eine Wärmepumpe "
          "zur Aufstellung im Freien. " + SECTION * 6 + "\n\n"
          "## Bedienung\n\nDie Calora AW12 wird über den Regler der Wärmepumpe bedient. "
          + SECTION * 6 + "\n\n"
          "## Garantie\n\nAuf die Calora AW12 gewährt der Hersteller fünf Jahre Garantie für "
          "die Wärmepumpe. " + SECTION * 6 + "\n\n"
          "## Störungen\n\nCode | Bedeutung | Abhilfe\nE04 | Durchfluss zu gering | Filter "
          "reinigen\nE17 | Fühler defekt | Fachbetrieb informieren\n"
          "E22 | Abtauung fehlgeschlagen | Außengerät von Eis befreien\n")
OTHER = ("# FAQ Energieberatung\n\nWas bedeutet eine Störung der Heizung im Altbau? Oft "
         "ist der Code im Display der Heizung erklärt.\n")


def test_the_passage_with_the_questions_code_leads_its_document(ingestor):
    """"Was bedeutet der Störungscode E22 bei der Wärmepumpe Calora AW12?": every passage of
    the manual repeats "Calora AW12" and "Wärmepumpe"; the one with "E22" is lifted above
    them (stage `anchors`, `coded`)."""
    items = [IngestItem("anleitung_aw12.md", data=MANUAL.encode(), source_uri="test://aw12"),
             IngestItem("faq.md", data=OTHER.encode(), source_uri="test://faq")]
    ingestor.ingest_many(items, collection="heat")
    retr = Retriever(ingestor.rs)
    q = "Was bedeutet der Störungscode E22 bei der Wärmepumpe Calora AW12?"
    res = retr.retrieve(q, RetrievalParams(collections=["heat"], k=5), scope=Scope.everything())
    texts = [h.text[:50] for h in res.hits]
    assert len({h.chunk_id for h in res.hits if h.filename == "anleitung_aw12.md"}) >= 3, texts
    assert "E22 | Abtauung fehlgeschlagen" in res.hits[0].text, texts
    stage = next(s for s in res.trace.stages if s.name == "anchors")
    assert stage.params["coded"] == 1, stage.params
