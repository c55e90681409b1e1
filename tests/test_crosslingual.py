"""Cross-language answers (issue 22, "Both languages"): the German–English dictionary (Ding
format, Debian trans-de-en; a small fixture file here, the real file is never copied into the
repository), its note in `status` when absent, the dictionary words in the retrieval trace, and
an English question answered from a German sentence of the sample corpus."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from backend.retrieval import dictionary

FIXTURE = Path(__file__).parent / "fixtures" / "dictionary" / "ding_sample.txt"


def test_the_parser_reads_both_directions_and_skips_bad_lines():
    d = dictionary.load(FIXTURE)
    assert d.translate("Umsatz", "de") == ["revenue", "turnover"]
    assert d.translate("umsätze", "de") == ["revenues", "turnovers"]  # the plural sub-entry
    assert d.translate("revenue", "en") == ["Umsatz", "Erlös"]
    # annotations {m} [econ.] (für Wasser) <Vol.> are dropped; phrases are not one word
    assert d.translate("Speicher", "de") == ["reservoir", "reservoirs"]
    assert d.translate("Volumen", "de") == ["volume"]
    assert d.translate("Mitarbeiter", "de") == ["employee", "employees"]
    assert d.translate("staff member", "en") == [] and d.translate("Ausverkauf", "de") == []
    # unequal sub-entry counts, no " :: ", two " :: ": skipped and counted, not an error
    assert d.translate("Ding", "de") == [] and d.translate("Fehlerhaft", "de") == []
    assert (d.lines, d.bad_lines) == (19, 3)
    assert d.translate("finden", "de") == ["find"]  # "to find": an English verb
    assert d.translate("found", "en") == ["gefunden"]


def test_a_missing_dictionary_is_off_with_a_note_in_status(tmp_path, monkeypatch, capsys):
    from backend.cli.main import main

    missing = tmp_path / "no-such-de-en"
    assert dictionary.get(missing) is None
    monkeypatch.setenv("RAGSCOPE_DATA_DIR", str(tmp_path / "var"))
    monkeypatch.setenv("RAGSCOPE_DICTIONARY_PATH", str(missing))
    assert main(["status"]) == 0
    info = json.loads(capsys.readouterr().out)["dictionary"]
    assert info["enabled"] is False
    assert "apt-get install trans-de-en" in info["note"] and str(missing) in info["note"]

    monkeypatch.setenv("RAGSCOPE_DICTIONARY_PATH", str(FIXTURE))
    assert main(["status"]) == 0
    assert json.loads(capsys.readouterr().out)["dictionary"]["enabled"] is True


def test_the_trace_shows_the_words_the_dictionary_added(sample_rs, monkeypatch):
    from backend.security.access import Scope
    from backend.retrieval.engine import Retriever
    from backend.retrieval.types import RetrievalParams

    monkeypatch.setattr(sample_rs, "settings", sample_rs.settings.model_copy(
        update={"dictionary_path": str(FIXTURE)}))
    res = Retriever(sample_rs).retrieve("How many employees did the company have?",
                                        RetrievalParams(collections=["samples"]),
                                        scope=Scope.everything())
    stage = next(s for s in res.trace.stages if s.name == "translate")
    assert stage.params["into"] == "de"
    assert "Mitarbeiter" in stage.params["words"]["employees"], stage.params
    assert "Mitarbeiter" in stage.params["added"]

    off = Retriever(sample_rs).retrieve("How many employees did the company have?",
                                        RetrievalParams(collections=["samples"],
                                                        translate=False),
                                        scope=Scope.everything())
    assert not any(s.name == "translate" for s in off.trace.stages)


QUESTION = "Where do I find my contract account number?"  # a109, answers_sample.yaml
ANSWER = "oben rechts auf jeder Rechnung"  # kundenportal_faq.html, a German sentence


@pytest.mark.parametrize("path, right", [("", False), (str(FIXTURE), True)])
def test_an_english_question_is_answered_from_a_german_sentence(answer_rs, monkeypatch, path,
                                                                right):
    """Without the dictionary the English question over the German FAQ gets "nothing found"
    (measured: "I found nothing on this in the documents."); with it the hand-weighted ranking
    quotes the German sentence ("Die Vertragskontonummer finden Sie oben rechts auf jeder
    Rechnung."). The learned ranker answers from the same German FAQ too, but quotes the
    sentence after the one naming the account number (its previous sentence carries the
    question's words): a109 is one of the two sample tuning questions it loses for four it
    wins (docs/chat.md, "A learned sentence ranker")."""
    import backend.answer.evidence.scoring as scoring
    from backend.chat.service import ChatService, SessionSettings
    from eval.answers import chat_answer

    monkeypatch.setattr(answer_rs, "settings", answer_rs.settings.model_copy(
        update={"dictionary_path": path}))
    svc = ChatService(answer_rs)
    cfg = SessionSettings(provider="extractive", collections=["samples"], temperature=0.0)
    learned = chat_answer(svc, QUESTION, cfg)
    assert learned.abstained is not right, learned.text
    if right:  # answered, from the German FAQ, with its citation
        assert "[" in learned.text and "Sie" in learned.text
    monkeypatch.setattr(scoring, "load_ranker", lambda: None)
    a = chat_answer(svc, QUESTION, cfg)
    assert (ANSWER in a.text) is right, a.text
    if right:
        assert not a.abstained and "[" in a.text  # quoted with its citation


def test_a_word_whose_translation_the_corpus_has_is_not_unseen():
    """An English question over German documents: "doors" is no unknown word when the
    corpus has "Türen" (the old rule counted it unseen and declined right German sentences,
    issue 22)."""
    from backend.answer.evidence.crosslingual import CrossLingual
    from backend.answer.evidence.question import analyse
    from backend.answer.evidence.corpus import unseen

    corpus = {"türen", "tür"}

    def share(word: str) -> float:
        return 0.1 if word.casefold() in corpus else 0.0

    question = "How many fire doors were replaced?"
    bridged = analyse(question, CrossLingual(str(FIXTURE), model=False))
    plain = analyse(question, None)
    assert "doors" in plain.words and bridged.bridge is not None
    assert unseen(bridged, share)[0] == pytest.approx(unseen(plain, share)[0] - 1 / len(plain.words))


def test_an_english_two_word_term_is_looked_up_as_the_german_compound():
    """"false alarm" :: "Fehlalarm": an English noun phrase is one German word, which no
    word-by-word translation finds ("false" → falsch, "alarm" → Alarm)."""
    d = dictionary.load(FIXTURE)
    assert d.en_phrases["false alarm"] == ("Fehlalarm",)
    assert d.en_phrases["false alarms"] == ("Fehlalarme",)  # the plural sub-entry
    assert d.en_phrases["assembly point"] == ("Sammelplatz", "Sammelpunkt")
    assert d.translate("false alarm", "en") == []  # the one-word table is unchanged
    # a sentence's phrase "It was only …" is no term; a plural its entry has, else its singular
    assert "it was" not in d.en_phrases
    got = dictionary.phrase_words(d, "Where are the Assembly points, and who pays false "
                                  "alarms or the staging areas?", "en")
    assert got == {"Assembly points": ["Sammelplätze", "Sammelpunkte"],
                   "false alarms": ["Fehlalarme"], "staging areas": ["Sammelplätze",
                                                                    "Sammelpunkte"]}
    d.en_phrases.pop("false alarms")
    assert dictionary.phrase_words(d, "false alarms", "en") == {"false alarms": ["Fehlalarm"]}
    # words on either side of a comma are not a term; German questions have no phrases here
    assert dictionary.phrase_words(d, "false, alarm", "en") == {}
    assert dictionary.phrase_words(d, "false alarm", "de") == {}
    words = dictionary.query_words(d, "Where is the assembly point?", "en")
    assert list(words)[0] == "assembly point" and words["assembly point"] == [
        "Sammelplatz", "Sammelpunkt"]


LAB_RULES = """Laborordnung für das Grundpraktikum

Allgemeines

Das Praktikum findet im Gebäude N2 statt. Jede Person trägt im Labor eine Schutzbrille und
einen Laborkittel. Essen und Trinken sind im Labor verboten.

Verhalten bei Gefahr

Bei einem Brand ist sofort der Alarm auszulösen und der Raum über den nächsten Fluchtweg zu
verlassen. Sammelplatz ist der Parkplatz P3 vor dem Hörsaalgebäude. Verletzungen werden der
Assistenz gemeldet.

Abfälle

Lösemittelabfälle werden getrennt gesammelt. Glasbruch gehört in den gelben Behälter.
"""

FIRE_POLICY = """Fire safety policy for the office building

In case of fire, leave the building by the nearest exit and do not use the lifts.
Fire extinguishers are checked once a year by the facilities team.
The fire alarm is tested every Monday at 10 am; the test lasts less than a minute.
"""


def test_an_english_question_finds_the_german_compound_of_its_two_word_term(
        make_rs, tmp_path, monkeypatch):
    """"Where is the assembly point if there is a fire in the lab?" over a German lab rule
    ("Sammelplatz ist der Parkplatz P3") and an English fire policy: the two-word term is
    the German compound, so the German sentence is quoted. Without the term (the same
    dictionary lacking that line) "assembly" → Aufstellung and "point" → Punkt find nothing
    and the English policy's "In case of fire, leave the building …" is quoted."""
    from backend.chat.service import ChatService, SessionSettings
    from backend.ingest.service import Ingestor
    from eval.answers import chat_answer

    without = tmp_path / "without_phrase.txt"
    without.write_text("".join(line for line in FIXTURE.read_text(encoding="utf-8")
                               .splitlines(keepends=True) if not line.startswith("Sammelplatz"))
                       + "Aufstellung {f} :: assembly\nPunkt {m} :: point\n", encoding="utf-8")
    question = "Where is the assembly point if there is a fire in the lab?"
    texts = {}
    for name, path in (("with", FIXTURE), ("without", without)):
        rs = make_rs(data_dir=tmp_path / name, dictionary_path=str(path))
        ing = Ingestor(rs)
        ing.ingest_bytes(LAB_RULES.encode(), "laborordnung.txt", collection="c")
        ing.ingest_bytes(FIRE_POLICY.encode(), "fire_policy.txt", collection="c")
        cfg = SessionSettings(provider="extractive", collections=["c"], temperature=0.0)
        texts[name] = chat_answer(ChatService(rs), question, cfg).text
    assert "Parkplatz P3" in texts["with"] and "[" in texts["with"], texts
    assert "Parkplatz P3" not in texts["without"], texts
