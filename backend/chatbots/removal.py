"""Deleting a chatbot (seed 003's "Chatbot löschen"; editor role): the bot row, its
configuration versions, its collection links and its conversations (chat sessions of the
bot with their messages, answer ratings and source links) go; its collections, their
documents and the crawl source that fills them stay — another bot or the Crawl page may use
them. A running build is cancelled first (requests in flight finish; their pages stay in the
collection). Everything goes in one transaction: a failure deletes nothing."""
from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import delete, func, select

from backend.chatbots.build import ACTIVE
from backend.crawl import runs
from backend.errors import CrawlError
from backend.security.access import Actor
from backend.store.chat_models import ChatMessage, ChatSession
from backend.store.chatbot_models import Chatbot, ChatbotCollection, ChatbotVersion


@dataclass
class Deleted:
    """What deleting a bot removed, and the collections it kept."""

    slug: str
    name: str
    conversations: int
    messages: int
    versions: int
    collections_kept: list[str]
    build_cancelled: bool = False

    def to_dict(self) -> dict:
        return dict(self.__dict__)


class RemovalMixin:
    """`delete` of ChatbotService (self.store, self.crawl, self._editable, self._row)."""

    def delete(self, actor: Actor | None, slug: str) -> Deleted:
        """Delete the bot, its versions, collection links and conversations; collections,
        documents and the crawl source stay. NotFound for a bot the editor cannot see."""
        info = self._editable(actor, slug)
        cancelled = self._cancel_running(info.crawl_run_id)
        with self.store.session() as s:
            bot = self._row(s, slug)
            sessions = select(ChatSession.id).where(ChatSession.chatbot_id == bot.id)
            report = Deleted(
                bot.slug, bot.name,
                s.scalar(select(func.count()).select_from(sessions.subquery())) or 0,
                s.scalar(select(func.count(ChatMessage.id)).where(
                    ChatMessage.session_id.in_(sessions))) or 0,
                s.scalar(select(func.count(ChatbotVersion.id)).where(
                    ChatbotVersion.chatbot_id == bot.id)) or 0,
                list(info.config.collections), cancelled)
            # explicit, not only ON DELETE CASCADE: the same on every database
            s.execute(delete(ChatMessage).where(ChatMessage.session_id.in_(sessions)))
            s.execute(delete(ChatSession).where(ChatSession.chatbot_id == bot.id))
            s.execute(delete(ChatbotVersion).where(ChatbotVersion.chatbot_id == bot.id))
            s.execute(delete(ChatbotCollection).where(ChatbotCollection.chatbot_id == bot.id))
            s.execute(delete(Chatbot).where(Chatbot.id == bot.id))
        return report

    def _cancel_running(self, run_id: int | None) -> bool:
        if run_id is None:
            return False
        if runs.progress(self.store, run_id).status not in ACTIVE:
            return False
        try:
            self.crawl.cancel(run_id)
        except CrawlError:  # it ended meanwhile
            return False
        return True


__all__ = ["Deleted", "RemovalMixin"]
