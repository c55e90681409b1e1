"""Asking a chatbot: the chat's answer path (ChatService.ask_stream) in a conversation of
the bot, with the bot's answer settings applied (seed 003's admin test page):

- **fallback message**: when the documents hold no evidence (the evidence gate abstained,
  no source) the reply is the bot's fallback message, stored as such;
- **minimum relevance** (`min_relevance`, 0–1, 0 = off): when no source's similarity to the
  question (the passage's cosine similarity, `relevance`; a page the asker named in the
  question counts as relevant) reaches it, the bot declines with its fallback message right
  after retrieval — no model is asked — and the turn is stored with `bot_fallback`;
- **show sources** (`show_sources`): off, the reply (page, API, CLI JSON) carries no
  sources and no `[n]` markers; the stored message keeps them (statistics, traces);
- **question URLs** (`question_urls`, off by default): a URL in a visitor's question is
  fetched only when the bot allows it (backend/chat/question_url.py).

Every reply's stored message says whether the bot's fallback was used
(`chat_messages.bot_fallback`, also `citations.bot_fallback`), which the statistics count
(stats.py)."""
from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field

from sqlalchemy import select, update

from backend.chat.service import Answered
from backend.chat.types import Delta, Fallback, Retrieved
from backend.errors import ChatbotError
from backend.security.access import Actor, Scope
from backend.store.chat_models import ChatMessage, ChatSession

_MARKER = re.compile(r"\s?\[\d{1,4}(?:\s*[,;]\s*\d{1,4})*\]")


@dataclass
class BotAnswer:
    """A bot's answer: the text (the bot's fallback message when the documents hold no
    evidence or none reaches the bot's minimum relevance), its sources with their retrieval
    scores (empty when the bot hides sources), and the conversation."""

    text: str
    sources: list[dict]
    session: str
    fallback_used: bool
    message_id: int
    notice: str | None = None
    citations: dict = field(default_factory=dict)
    sources_hidden: bool = False


def best_relevance(sources: list[dict]) -> float:
    """The highest similarity of a source to the question; a page named in the question
    (`kind: web`) and a source without a similarity (an analysis answer's document) count
    as fully relevant, a passage found by keywords only (`relevance: None`) as 0."""
    return max((1.0 if s.get("kind") == "web" or "relevance" not in s
                else float(s.get("relevance") or 0.0) for s in sources), default=0.0)


def below_min_relevance(config, sources: list[dict]) -> bool:
    return config.min_relevance > 0 and best_relevance(sources) < config.min_relevance


def shown(config, text: str, sources: list[dict]) -> tuple[str, list[dict]]:
    """What a reply shows of an answer: everything, or without sources and markers."""
    if config.show_sources:
        return text, sources
    return _MARKER.sub("", text).strip(), []


def shown_citations(config, citations: dict) -> dict:
    """Without the "possibly related" passages of a declined answer when sources are
    hidden (they are sources too)."""
    if config.show_sources:
        return citations
    return {k: v for k, v in citations.items() if k != "related"}


class AskMixin:
    """Asking methods of ChatbotService (self.store, self.chat, self.open)."""

    def _for_asking(self, actor: Actor | None, slug: str, published_only: bool):
        # visible bots only; drafts (the wizard's test chat) need chatbot_edit
        return self.open(actor, slug, published_only=published_only)

    def session_settings(self, bot) -> dict:
        c = bot.config
        return dict(provider=c.provider, model=c.model, collections=list(c.collections),
                    context_limit=c.context_limit, temperature=c.temperature,
                    max_tokens=c.max_tokens, policy=c.policy, system_prompt=c.system_prompt,
                    profile_id=c.profile_id)

    def _session(self, actor: Actor, bot, uuid: str | None) -> str:
        settings = self.session_settings(bot)
        if uuid:
            with self.store.session() as s:
                row = s.scalar(select(ChatSession).where(ChatSession.uuid == str(uuid)))
                ok = row is not None and row.chatbot_id == bot.id and row.user == actor.username
            if ok:  # the bot's current configuration applies to the next answer
                self.chat.update_settings(uuid, user=actor.username, **settings)
                return uuid
        return self.chat.create_session(actor.username, chatbot_id=bot.id, **settings).uuid

    def ask_stream(self, actor: Actor | None, slug: str, question: str, *,
                   session: str | None = None, published_only: bool = False
                   ) -> Iterator[Retrieved | Delta | Fallback | BotAnswer]:
        """The chat's answer path (ChatService.ask_stream) on the bot's collections and
        settings, in a conversation of the bot. Ends with a BotAnswer; when the documents
        hold no evidence, or none reaches the bot's minimum relevance, its text is the
        bot's fallback message (also stored). `published_only` (the bot page, the API's
        ask): a draft is not found."""
        bot = self._for_asking(actor, slug, published_only)
        cfg = bot.config
        if not cfg.collections:
            raise ChatbotError(f"chatbot '{slug}' has no collections to answer from")
        q = self.chat.validate_question(question)
        uuid = self._session(actor, bot, session)
        # a published bot answers its viewers from its own collections (publishing shares
        # them through the bot), nothing else: the bot's scope, not the asker's
        scope = Scope.of(cfg.collections)
        events = self.chat.ask_stream(uuid, q, scope=scope, user=actor.username,
                                      question_urls=cfg.question_urls)
        for ev in events:
            if isinstance(ev, Retrieved) and below_min_relevance(cfg, ev.sources):
                events.close()  # no model is asked
                yield self._declined(bot, uuid, q, ev)
                return
            if isinstance(ev, Answered):
                yield self._bot_answer(bot, ev, uuid)
            elif isinstance(ev, Retrieved):
                yield Retrieved(shown(cfg, "", ev.sources)[1], ev.trace_id, ev.retrieval_ms)
            else:
                yield ev

    def ask(self, actor: Actor | None, slug: str, question: str, *,
            session: str | None = None, published_only: bool = False) -> BotAnswer:
        last = None
        for ev in self.ask_stream(actor, slug, question, session=session,
                                  published_only=published_only):
            last = ev
        assert isinstance(last, BotAnswer)
        return last

    def _declined(self, bot, uuid: str, q: str, ev: Retrieved) -> BotAnswer:
        """Store the turn with the fallback message: no source reached min relevance."""
        cfg = bot.config
        best = best_relevance(ev.sources)
        text = cfg.fallback_message.strip() or (
            "No passage of this chatbot's pages is relevant enough to answer that.")
        citations = {"cited": [], "invalid": [], "uncited_sentences": [], "ok": True,
                     "abstained": True, "bot_fallback": True,
                     "min_relevance": cfg.min_relevance, "best_relevance": round(best, 4)}
        sess = self.chat.get_session(uuid)
        done = self.chat.store_turn(uuid, q, sess.settings, content=text, sources=ev.sources,
                                    citations=citations, provider="extractive",
                                    model="declined", trace_id=ev.trace_id,
                                    latency_ms=ev.retrieval_ms, bot_fallback=True,
                                    retrieval_ms=ev.retrieval_ms)
        return BotAnswer(text, [] if not cfg.show_sources else done.message.sources, uuid,
                         True, done.message.id, None, shown_citations(cfg, citations),
                         sources_hidden=not cfg.show_sources)

    def _bot_answer(self, bot, ev: Answered, uuid: str) -> BotAnswer:
        m = ev.message
        no_evidence = bool(m.citations.get("abstained")) or not m.sources
        text = m.content
        citations = {**m.citations, "bot_fallback": no_evidence}
        values = {"citations": citations, "bot_fallback": no_evidence}
        if no_evidence and bot.config.fallback_message.strip():
            text = values["content"] = bot.config.fallback_message.strip()
        with self.store.session() as s:
            s.execute(update(ChatMessage).where(ChatMessage.id == m.id).values(**values))
        text, sources = shown(bot.config, text, m.sources)
        return BotAnswer(text, sources, uuid, no_evidence, m.id, m.notice,
                         shown_citations(bot.config, citations),
                         sources_hidden=not bot.config.show_sources)

    def conversation(self, actor: Actor | None, slug: str, uuid: str, *,
                     published_only: bool = False) -> list:
        """The actor's conversation with the bot, as the bot shows it (without sources
        and markers when the bot hides them)."""
        bot = self._for_asking(actor, slug, published_only)
        with self.store.session() as s:
            row = s.scalar(select(ChatSession).where(ChatSession.uuid == str(uuid)))
            if row is None or row.chatbot_id != bot.id or row.user != actor.username:
                return []
        msgs = self.chat.messages(uuid, scope=Scope.of(bot.config.collections),
                                  user=actor.username)
        if not bot.config.show_sources:
            for m in msgs:
                if m.role == "assistant":
                    m.content, m.sources = shown(bot.config, m.content, m.sources)
                    m.citations = shown_citations(bot.config, m.citations)
        return msgs


__all__ = ["AskMixin", "BotAnswer", "below_min_relevance", "best_relevance", "shown"]
