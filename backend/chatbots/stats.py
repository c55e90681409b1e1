"""The admin test page's statistics of a chatbot (seed 003 "STATISTIKEN"), counted from the
stored conversations of the bot (chat sessions with its `chatbot_id`) in a few aggregate
queries — no message is loaded:

- documents and chunks in its collections (indexed chunks of the active versions),
- conversations, messages (questions and answers), answers,
- average response time: the mean `latency_ms` of its answers (question received → answer
  stored; a decline below the minimum relevance counts its retrieval time),
- fallback rate: the share of answers that were the bot's fallback message
  (`chat_messages.bot_fallback`: no evidence, or no source reached the minimum relevance),
- the last answer's time."""
from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import case, func, select

from backend.security.access import Actor
from backend.store.chat_models import ChatMessage, ChatSession


@dataclass
class BotStats:
    documents: int
    chunks: int
    conversations: int
    messages: int
    answers: int
    fallbacks: int
    avg_response_ms: float | None  # None: no answer timed yet
    last_answer_at: datetime | None

    @property
    def fallback_rate(self) -> float | None:
        return self.fallbacks / self.answers if self.answers else None

    def to_dict(self) -> dict:
        return {**self.__dict__, "fallback_rate": self.fallback_rate}


class StatsMixin:
    """`stats` of ChatbotService (self.store, self._editable, self._row, BuildMixin counts)."""

    def stats(self, actor: Actor | None, slug: str) -> BotStats:
        """For editors of the bot (the test page): NotFound for a bot they cannot see."""
        self._editable(actor, slug)
        with self.store.session() as s:
            bot = self._row(s, slug)
            sessions = select(ChatSession.id).where(ChatSession.chatbot_id == bot.id)
            conversations = s.scalar(select(func.count()).select_from(sessions.subquery()))
            answer = ChatMessage.role == "assistant"
            row = s.execute(select(
                func.count(ChatMessage.id),
                func.sum(case((answer, 1), else_=0)),
                func.sum(case((answer & ChatMessage.bot_fallback.is_(True), 1), else_=0)),
                func.avg(case((answer, ChatMessage.latency_ms), else_=None)),
                func.max(case((answer, ChatMessage.created_at), else_=None)),
            ).where(ChatMessage.session_id.in_(sessions))).one()
            return BotStats(self._document_count(s, bot.id), self._chunk_count(s, bot.id),
                            conversations or 0, row[0] or 0, int(row[1] or 0),
                            int(row[2] or 0),
                            None if row[3] is None else round(float(row[3]), 1), row[4])


__all__ = ["BotStats", "StatsMixin"]
