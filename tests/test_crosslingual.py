"""The chat's cross-language expansion (backend/retrieval/crosslingual.py): an English
question also searches for German words of the corpus (and the reverse), found by
multilingual-e5 vectors of single words; the answer is still chosen for the question as
asked. Measured on the answer benchmark in docs/chat.md, "Cross-language expansion"."""
from __future__ import annotations

from backend.access import Scope
from backend.chat.service import ChatService
from backend.evidence.scoring import STOPWORDS
from backend.ingest.service import Ingestor
from backend.retrieval.crosslingual import CACHE_FILE, CrossLexicon
from backend.retrieval.traces import get_trace

QUESTION = "Where do I find my contract account number?"  # answered only in German


def _ask(rs, question):
    svc = ChatService(rs)
    sess = svc.create_session("alice", collections=["samples"])
    return svc.ask(sess.uuid, question, scope=Scope.everything(), user="alice").message


def _expansion(rs, msg) -> list[str]:
    trace = get_trace(rs.store, msg.trace_id, viewer="alice", is_admin=False)
    return trace.params["expansion"]


def test_an_english_question_finds_the_german_answer(answer_rs):
    msg = _ask(answer_rs, QUESTION)
    assert "oben rechts auf jeder Rechnung" in msg.content, msg.content
    assert {s["filename"] for s in msg.sources if s["cited"]} == {"kundenportal_faq.html"}
    words = _expansion(answer_rs, msg)
    assert words and all(w.lower() not in QUESTION.lower() for w in words), words


def test_switched_off_the_question_is_searched_as_asked(answer_rs):
    from backend.services import Ragscope

    off = Ragscope(answer_rs.settings.model_copy(update={"chat_cross_language": False}))
    off.embedder = answer_rs.embedder  # the same corpus and indexes, lent
    off.vector_index, off.keyword_index = answer_rs.vector_index, answer_rs.keyword_index
    try:
        msg = _ask(off, QUESTION)
        assert _expansion(off, msg) == []
        assert "oben rechts" not in msg.content, msg.content
    finally:
        off.close()


def test_a_failing_expansion_does_not_fail_the_answer(answer_rs, monkeypatch):
    def broken(*a, **k):
        raise RuntimeError("lexicon unreadable")

    monkeypatch.setattr(answer_rs.cross_lexicon, "translations", broken)
    msg = _ask(answer_rs, "What is the default value of gateway.max_connections?")
    assert "512" in msg.content and _expansion(answer_rs, msg) == []


EN = ("# Annual report\n\nThe annual revenue of the municipal utility rose to EUR 84.6 million "
      "in 2023, mainly because of higher prices for electricity and water.\n")
DE = ("# Jahresbericht\n\nDer Umsatz der Stadtwerke stieg im Jahr 2023 auf 84,6 Millionen Euro, "
      "vor allem wegen höherer Preise für Strom und Wasser.\n")
DE2 = ("# Personal\n\nDie Stadtwerke beschäftigten Ende 2023 insgesamt 264 Mitarbeiter, davon "
       "19 Auszubildende in technischen und kaufmännischen Berufen.\n")


def test_the_lexicon_follows_the_corpus_and_reuses_its_word_vectors(make_rs, tmp_path,
                                                                    monkeypatch):
    docs = tmp_path / "docs"
    docs.mkdir()
    for name, text in (("report_en.md", EN), ("bericht_de.md", DE)):
        (docs / name).write_text(text)
    rs = make_rs(embedding_cache_dir=tmp_path / "models")
    assert all(o.ok for o in Ingestor(rs).ingest_paths([docs]))
    lex = rs.cross_lexicon
    assert "Umsatz" in lex.translations("What was the revenue of the utility?", "en", STOPWORDS)
    assert "Mitarbeiter" not in lex.warm_up() and lex.warm_up()["de"] > 0
    (docs / "personal_de.md").write_text(DE2)
    assert all(o.ok for o in Ingestor(rs).ingest_paths([docs / "personal_de.md"]))
    # the ingest changed the index generation: the German vocabulary now has the new words
    assert "Mitarbeiter" in lex.translations("How many employees did the utility have?", "en",
                                             STOPWORDS)
    assert (tmp_path / "models" / CACHE_FILE).exists()
    # another process (here: lexicon) on the same models folder embeds only unknown words
    embedded = []
    again = CrossLexicon(rs.store, tmp_path / "models", rs.index_lock.generation)
    real = again._embed

    def counting(words):
        embedded.extend(words)
        return real(words)

    monkeypatch.setattr(again, "_embed", counting)
    assert "Umsatz" in again.translations("What was the revenue?", "en", STOPWORDS)
    assert embedded == ["revenue"]  # the question's word only; the corpus came from the file


def test_no_other_language_no_expansion(make_rs, tmp_path):
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "report_en.md").write_text(EN)
    rs = make_rs(embedding_cache_dir=tmp_path / "models")
    assert all(o.ok for o in Ingestor(rs).ingest_paths([docs]))
    assert rs.cross_lexicon.translations("What was the revenue?", "en", STOPWORDS) == []
