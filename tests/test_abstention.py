"""An honest "not found" (issue 22, item 4): the fitted abstention model is what the answerer
uses, a near miss is declined in the question's language with the closest passages as
"possibly related", and every answer carries a confidence hint — in the stored chat message
and at the API, MCP and chatbot interfaces (tests/test_citations.py covers the ask stream and
MCP; the chat page: tests/test_chat_pages.py)."""
from __future__ import annotations

import json
import math

import pytest

from backend.answer import confidence
from backend.answer.evidence.abstention import MODEL_FILE, AbstainModel, load_model, signals
from backend.answer.evidence.question import analyse
from backend.answer.evidence.scoring import assess
from backend.chat.service import ChatService
from backend.llm.base import Evidence
from backend.security.access import Scope
from tests.test_chat import chat_rs  # noqa: F401  (fixture)

EVERYTHING = Scope.everything()
NOT_FOUND_DE = "Dazu habe ich in den Dokumenten nichts gefunden."
# near misses of the sample benchmark (eval/answers_sample.yaml u019, u012): the corpus has
# the elevated reservoir Eichberg, not Südhang, and no gateway.compression_level
NEAR_DE = "Wie viele Kubikmeter fasst der Hochbehälter Südhang?"
NEAR_EN = "What is the default value of gateway.compression_level?"


def _ask(rs, question: str):
    svc = ChatService(rs)
    sess = svc.create_session(None)
    return svc.ask(sess.uuid, question, scope=EVERYTHING).message


# ---- the model file ----------------------------------------------------------------------

def test_the_fitted_model_loads_and_every_input_is_a_computed_signal():
    model = load_model()
    assert model is not None, f"{MODEL_FILE} is missing"
    assert 0.0 < model.threshold < 1.0 and "eval.unseen_tune --abstain" in model.fitted
    ev = [Evidence(1, "Der Umsatz der Stadtwerke betrug 2023 84,6 Mio. EUR.", "Bericht")]
    a = assess("Wie hoch war der Umsatz 2023?", ev, model=None)
    made = signals(a.question, a.ranked, ev, None, a.best)
    missing = [f for f in model.features if f not in made]
    assert not missing, f"the model reads signals nobody computes: {missing}"


def test_a_model_file_with_mismatched_lengths_is_refused_with_its_name(tmp_path):
    bad = json.loads(MODEL_FILE.read_text(encoding="utf-8"))
    bad["coef"] = bad["coef"][:-1]
    with pytest.raises(ValueError, match="abstain_model.json"):
        AbstainModel.from_dict(bad)


def test_the_model_decides_the_abstention_and_gives_its_probability():
    ev = [Evidence(1, "Der Umsatz der Stadtwerke betrug 2023 84,6 Mio. EUR.", "Bericht")]
    decline_all = AbstainModel(("top_strict",), (0.0,), (1.0,), (0.0,), 30.0, 0.5)
    answer_all = AbstainModel(("top_strict",), (0.0,), (1.0,), (0.0,), -30.0, 0.5)
    q = "Wie hoch war der Umsatz 2023?"
    assert assess(q, ev, model=decline_all).abstain
    kept = assess(q, ev, model=answer_all)
    assert not kept.abstain and math.isclose(kept.p_unanswerable, 1 / (1 + math.exp(30)))
    assert assess(q, ev, model=None).p_unanswerable is None


def test_names_missing_from_the_evidence_are_a_signal():
    ev = [Evidence(1, "Die Heizleistung der Calora AW12 bei A7/W35 beträgt 11,8 kW.", "Anleitung")]
    near = assess("Wie hoch ist die Heizleistung der Calora AW8 bei A7/W35?", ev, model=None)
    right = assess("Wie hoch ist die Heizleistung der Calora AW12 bei A7/W35?", ev, model=None)
    assert near.signals["name_miss_top"] > right.signals["name_miss_top"] == 0.0


# ---- the confidence hint -----------------------------------------------------------------

def test_hint_text_in_both_languages_and_levels():
    srcs = [{"document_id": 1}, {"document_id": 1}, {"document_id": 2}]
    en = confidence.hint(srcs, "en", declined=False, p_unanswerable=0.05)
    assert en["text"] == "Confidence: high — based on 3 passages from 2 documents"
    assert en["level"] == "high" and en["p_unanswerable"] == 0.05
    de = confidence.hint(srcs[:1], "de", declined=False, p_unanswerable=0.2)
    assert de["text"] == "Konfidenz: mittel — auf Grundlage von 1 Passage aus 1 Dokument"
    assert confidence.hint(srcs, "de", declined=False, p_unanswerable=0.4)["level"] == "low"
    assert confidence.hint(srcs, "en", declined=True, p_unanswerable=0.01)["level"] == "low"
    assert confidence.hint([], "fr", declined=False)["text"].startswith("Confidence: medium")


# ---- through the chat --------------------------------------------------------------------

def test_an_answer_carries_its_confidence_hint(chat_rs):
    msg = _ask(chat_rs, "Welche Portnummer verwendet das Lumen Data Gateway standardmäßig?")
    assert "8443" in msg.content
    c = msg.citations["confidence"]
    docs = {s["document_id"] for s in msg.sources}
    assert c["passages"] == len(msg.sources) and c["documents"] == len(docs)
    assert c["p_unanswerable"] < load_model().threshold  # answered: the model let it pass
    level = {"high": "hoch", "medium": "mittel", "low": "niedrig"}[c["level"]]
    assert c["text"].startswith(f"Konfidenz: {level} — auf Grundlage von ")
    assert f"{len(msg.sources)} Passagen aus {len(docs)} Dokument" in c["text"]
    assert "related" not in msg.citations  # only a declined answer has them


def test_a_declined_answer_says_so_and_shows_possibly_related_passages(chat_rs):
    msg = _ask(chat_rs, NEAR_DE)
    assert msg.content == NOT_FOUND_DE
    assert msg.citations["abstained"] and msg.citations["confidence"]["level"] == "low"
    assert msg.citations["related_label"] == "Möglicherweise verwandt"
    related = msg.citations["related"]
    by_n = {s["n"]: s for s in msg.sources}
    assert 1 <= len(related) <= confidence.RELATED
    assert len({r["n"] for r in related}) == len(related)  # one passage per source
    for r in related:
        assert r["n"] in by_n and r["title"] == by_n[r["n"]]["title"] and r["text"]


def test_an_english_decline_is_english(chat_rs):
    msg = _ask(chat_rs, NEAR_EN)
    assert msg.content == "I found nothing on this in the documents."
    assert msg.citations["related_label"] == "Possibly related"
    assert msg.citations["confidence"]["text"].startswith("Confidence: low — based on ")


def test_api_and_chatbot_answers_carry_the_hint(chat_rs):
    from backend.api import serialise
    from backend.api.schemas_chatbots import BotAnswerOut
    from backend.chatbots.service import BotAnswer

    msg = _ask(chat_rs, NEAR_DE)
    out = serialise.answer("s", msg)
    assert out["confidence"] == msg.citations["confidence"]
    assert out["related"] == msg.citations["related"]
    from backend.api.serialise_chatbots import answer as bot_answer

    bot = bot_answer(BotAnswer(msg.content, msg.sources, "s", True, msg.id, None,
                               msg.citations))
    shown = BotAnswerOut.model_validate(bot).model_dump()
    assert shown["confidence"]["level"] == "low" and shown["related"] == msg.citations["related"]
