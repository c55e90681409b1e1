"""Chatbot builder gaps (issue 26.8): deleting a bot (its conversations go, its collections
stay, no row of it is left), the test page's statistics, minimum relevance (declines with the
fallback message, no model asked), show sources off (no sources or markers in the reply),
the question-URL switch, and the temperature range per provider."""
from __future__ import annotations

import pytest
from sqlalchemy import func, select

from backend.chat import feedback
from backend.errors import InvalidChatbot, NotFound
from backend.ingest.service import Ingestor
from backend.llm.base import StreamEnd, TextDelta
from backend.security.auth import PermissionDenied
from backend.store.chat_models import ChatMessage, ChatMessageDocument, ChatSession
from backend.store.chatbot_models import Chatbot, ChatbotCollection, ChatbotVersion
from backend.store.feedback_models import AnswerFeedback
from backend.store.models import Collection, Document
from tests.chatbot_site import EDITOR, VIEWER, bot_service

FERRY = (b"Lindholm ferry tickets. A single ferry ticket for adults costs 7.50 euros; "
         b"children under 12 travel for 3.20 euros. Bicycles need a bicycle ticket of 2 "
         b"euros.\n\nThe ferry Seeschwalbe carries 24 cars on its car deck.")
FALLBACK = "Sorry, the ferry pages do not say. Call the Nordhafen ticket office."


class CountingProvider:
    """A generative provider that answers from source [1] and counts its calls."""

    name, local = "recording", True

    def __init__(self):
        self.calls = []

    def stream(self, request):
        self.calls.append(request)
        yield TextDelta("A single adult ticket costs 7.50 euros [1].")
        yield StreamEnd(model="rec-1", input_tokens=10, output_tokens=9)


@pytest.fixture
def ferry(make_rs):
    rs = make_rs()
    Ingestor(rs).ingest_bytes(FERRY, "tickets.txt", collection="ferry")
    return rs


def _count(rs, model, *where) -> int:
    with rs.store.session() as s:
        return s.scalar(select(func.count()).select_from(model).where(*where)) or 0


def test_delete_removes_the_bot_and_its_conversations_but_keeps_collections(ferry):
    svc = bot_service(ferry)
    bot = svc.create(EDITOR, name="Ferry Bot", collections=["ferry"],
                     fallback_message=FALLBACK)
    other = svc.create(EDITOR, name="Other Bot", collections=["ferry"])
    ans = svc.ask(EDITOR, bot.slug, "How much is a single ticket for adults?")
    svc.ask(EDITOR, bot.slug, "What does pizza cost in Tokyo?", session=ans.session)
    kept = svc.ask(EDITOR, other.slug, "How many cars fit on the car deck?")
    with ferry.store.session() as s:
        feedback.put(s, ans.message_id, EDITOR.username, 1, "right")
    assert _count(ferry, ChatMessageDocument, ChatMessageDocument.message_id == ans.message_id)

    with pytest.raises(PermissionDenied):
        svc.delete(VIEWER, bot.slug)
    done = svc.delete(EDITOR, bot.slug)
    assert (done.conversations, done.messages, done.collections_kept) == (1, 4, ["ferry"])
    with pytest.raises(NotFound):
        svc.get(bot.slug)
    with pytest.raises(NotFound):
        svc.delete(EDITOR, bot.slug)
    for model, col in ((Chatbot, Chatbot.id), (ChatbotVersion, ChatbotVersion.chatbot_id),
                       (ChatbotCollection, ChatbotCollection.chatbot_id),
                       (ChatSession, ChatSession.chatbot_id)):
        assert _count(ferry, model, col == bot.id) == 0, model.__tablename__
    assert _count(ferry, ChatMessage, ChatMessage.id == ans.message_id) == 0
    assert _count(ferry, AnswerFeedback) == 0
    assert _count(ferry, ChatMessageDocument,
                  ChatMessageDocument.message_id == ans.message_id) == 0
    # the collection, its document and the other bot's conversation stay
    assert _count(ferry, Collection, Collection.name == "ferry") == 1
    assert _count(ferry, Document) == 1
    assert svc.conversation(EDITOR, other.slug, kept.session)[-1].content == kept.text


def test_statistics_count_conversations_answers_and_fallbacks(ferry):
    svc = bot_service(ferry)
    bot = svc.create(EDITOR, name="Ferry Bot", collections=["ferry"],
                     fallback_message=FALLBACK)
    empty = svc.stats(EDITOR, bot.slug)
    assert (empty.conversations, empty.messages, empty.answers) == (0, 0, 0)
    assert empty.fallback_rate is None and empty.avg_response_ms is None
    assert (empty.documents, empty.chunks) == (1, 1) or empty.chunks >= 1
    a = svc.ask(EDITOR, bot.slug, "How much is a single ticket for adults?")
    svc.ask(EDITOR, bot.slug, "What does pizza cost at the Tokyo market?", session=a.session)
    svc.ask(EDITOR, bot.slug, "How many cars fit on the car deck?")
    st = svc.stats(EDITOR, bot.slug)
    assert (st.conversations, st.messages, st.answers, st.fallbacks) == (2, 6, 3, 1)
    assert st.fallback_rate == pytest.approx(1 / 3)
    with ferry.store.session() as s:
        lat = list(s.scalars(select(ChatMessage.latency_ms).where(
            ChatMessage.role == "assistant")))
    assert st.avg_response_ms == pytest.approx(sum(lat) / 3, abs=0.1) and st.avg_response_ms > 0
    with pytest.raises(PermissionDenied):
        svc.stats(VIEWER, bot.slug)


def test_min_relevance_declines_without_asking_the_model(ferry):
    llm = CountingProvider()
    svc = bot_service(ferry, provider_factory=lambda name: llm)
    bot = svc.create(EDITOR, name="Ferry Bot", collections=["ferry"], provider="ollama",
                     fallback_message=FALLBACK)
    ok = svc.ask(EDITOR, bot.slug, "How much is a single ferry ticket for adults?")
    assert "7.50" in ok.text and len(llm.calls) == 1
    best = max(s["relevance"] for s in ok.sources)
    assert 0 < best < 1

    svc.update(EDITOR, bot.slug, min_relevance=round(min(best + 0.05, 1.0), 2))
    no = svc.ask(EDITOR, bot.slug, "How much is a single ferry ticket for adults?")
    assert no.text == FALLBACK and no.fallback_used and len(llm.calls) == 1
    assert no.citations["best_relevance"] == pytest.approx(best, abs=1e-3)
    assert svc.stats(EDITOR, bot.slug).fallbacks == 1
    with pytest.raises(InvalidChatbot) as e:
        svc.update(EDITOR, bot.slug, min_relevance=1.5)
    assert "between 0.0 and 1.0" in e.value.errors["min_relevance"]


def test_show_sources_off_omits_sources_and_markers(ferry):
    llm = CountingProvider()
    svc = bot_service(ferry, provider_factory=lambda name: llm)
    bot = svc.create(EDITOR, name="Ferry Bot", collections=["ferry"], provider="ollama",
                     show_sources=False)
    events = list(svc.ask_stream(EDITOR, bot.slug, "How much is a single ticket?"))
    ans = events[-1]
    assert ans.sources == [] and ans.sources_hidden and "[1]" not in ans.text
    assert "7.50 euros" in ans.text
    assert all(ev.sources == [] for ev in events if hasattr(ev, "trace_id"))
    shown = svc.conversation(EDITOR, bot.slug, ans.session)
    assert shown[-1].sources == [] and "[1]" not in shown[-1].content
    with ferry.store.session() as s:  # stored whole (statistics, traces)
        stored = s.get(ChatMessage, ans.message_id)
        assert stored.sources and "[1]" in stored.content
    svc.update(EDITOR, bot.slug, show_sources=True)
    assert svc.ask(EDITOR, bot.slug, "How much is a single ticket?").sources


def test_question_urls_are_off_for_bots_unless_switched_on(ferry):
    svc = bot_service(ferry)
    bot = svc.create(EDITOR, name="Ferry Bot", collections=["ferry"])
    assert bot.config.question_urls is False
    ans = svc.ask(EDITOR, bot.slug, "What does http://127.0.0.1:9/prices.html say about "
                  "single tickets?")
    assert "does not fetch URLs" in (ans.notice or "")
    svc.update(EDITOR, bot.slug, question_urls=True)
    ans = svc.ask(EDITOR, bot.slug, "What does http://127.0.0.1:9/prices.html say about "
                  "single tickets?")
    assert "does not fetch URLs" not in (ans.notice or "")
    assert "http://127.0.0.1:9/prices.html was not used" in (ans.notice or "")


@pytest.mark.parametrize("provider,temperature,ok", [
    ("openai", 2.0, True), ("local", 1.8, True), ("ollama", 1.5, True),
    ("anthropic", 1.0, True), ("anthropic", 1.2, False), ("openai", 2.1, False),
    ("extractive", -0.1, False)])
def test_temperature_range_per_provider(ferry, provider, temperature, ok):
    svc = bot_service(ferry)
    if ok:
        bot = svc.create(EDITOR, name="Hot Bot", collections=["ferry"], provider=provider,
                         temperature=temperature)
        assert svc.ask(EDITOR, bot.slug, "How much is a single ticket?") is not None \
            if provider == "extractive" else bot.config.temperature == temperature
        sess = svc.chat.create_session("x", **svc.session_settings(bot))
        assert sess.settings.temperature == temperature
        return
    with pytest.raises(InvalidChatbot) as e:
        svc.create(EDITOR, name="Hot Bot", collections=["ferry"], provider=provider,
                   temperature=temperature)
    msg = e.value.errors["temperature"]
    assert provider in msg and ("1.0" if provider == "anthropic" else "2.0") in msg


def test_cli_stats_and_delete(ferry, monkeypatch, capsys):
    import argparse

    from backend.cli import chatbot as cli_chatbot

    svc = bot_service(ferry)
    monkeypatch.setattr(cli_chatbot, "_service", lambda: svc)
    parser = argparse.ArgumentParser()
    cli_chatbot.register(parser.add_subparsers(dest="cmd"))
    run = lambda *argv: (lambda a: a.fn(a))(parser.parse_args(list(argv)))
    bot = svc.create(EDITOR, name="Ferry Bot", collections=["ferry"])
    svc.ask(EDITOR, bot.slug, "How much is a single ticket for adults?")
    assert run("chatbot", "stats", bot.slug) == 0
    out = capsys.readouterr().out
    assert "conversations 1, messages 2, answers 1" in out and "fallback rate 0%" in out
    monkeypatch.setattr("sys.stdin.isatty", lambda: False)
    assert run("chatbot", "delete", bot.slug) == 1  # no --yes, no terminal: kept
    assert "--yes" in capsys.readouterr().err and svc.get(bot.slug)
    assert run("chatbot", "delete", bot.slug, "--yes") == 0
    assert "deleted with 1 conversation(s) and 2 message(s); collections kept: ferry" in \
        capsys.readouterr().out
    with pytest.raises(NotFound):
        run("chatbot", "stats", bot.slug)
