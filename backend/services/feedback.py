"""Feedback on answers, for every front door (chat page, chatbot page, HTTP API, MCP, the
Evaluation page): rate an answer with a thumbs up or down and an optional note, read one's
ratings back, list rated answers.

Who may rate (the rule lives here, so it holds in every front door): an answer of a chat
session its owner may rate (a dashboard user their sessions, an API principal the sessions
of its `/api/ask` calls; admins signed in to the dashboard, who may open any session, any
chat session); an answer of a published chatbot's conversation only the visitor whose
conversation it is, while the bot is visible to them. Any other answer is "not found",
with the same message as one that does not exist. Rated answers are listed to admins all,
to others their own ratings; their sources are blanked outside the reader's scope."""
from __future__ import annotations

from datetime import date

from sqlalchemy import select

from backend.chat import feedback as store_fb
from backend.chat.feedback import Feedback, RatedAnswer
from backend.chat.sources import scope_sources
from backend.errors import NotFound
from backend.security import access, auth
from backend.security.access import Actor
from backend.services.search import chat_user
from backend.store.chat_models import ChatMessage, ChatSession
from backend.store.chatbot_models import Chatbot, ChatbotCollection
from backend.store.models import Collection

__all__ = ["Feedback", "RatedAnswer", "feedback_of", "rate", "rated_answers"]


def _not_found(message_id: int) -> NotFound:
    return NotFound(f"answer {message_id} does not exist, or is not one you may rate")


def _is_dashboard_admin(actor: Actor) -> bool:
    return actor.kind in ("user", "system") and auth.has_role(actor.role, "admin")


def _bot_visible(s, rs, actor: Actor, bot_id: int) -> bool:
    scope = access.scope_of(rs, actor)
    names = s.scalars(select(Collection.name).join(
        ChatbotCollection, ChatbotCollection.collection_id == Collection.id)
        .where(ChatbotCollection.chatbot_id == bot_id))
    return all(scope.can_read(n) for n in names)


def _may_rate(s, rs, actor: Actor, sess: ChatSession, chatbot: str | None) -> bool:
    if sess.chatbot_id is not None:  # a bot's conversation: its visitor only
        slug = s.scalar(select(Chatbot.slug).where(Chatbot.id == sess.chatbot_id))
        return (sess.user == actor.username and (chatbot is None or chatbot == slug)
                and _bot_visible(s, rs, actor, sess.chatbot_id))
    if chatbot is not None:
        return False
    return sess.user == chat_user(actor) or _is_dashboard_admin(actor)


def rate(rs, actor: Actor | None, message_id: int, rating: str | None, note: str = "", *,
         chatbot: str | None = None) -> Feedback | None:
    """Set the actor's rating ("up" or "down", with an optional note) of an answer; None
    removes it. `chatbot`: the bot page's slug — the answer must be of that bot's
    conversation. NotFound for an answer the actor may not rate; ChatInputError naming the
    field for a bad rating or note."""
    actor = access.require(actor, "view")
    value, note = store_fb.parse(rating, note)
    with rs.store.session() as s:
        row = s.execute(select(ChatMessage, ChatSession)
                        .join(ChatSession, ChatSession.id == ChatMessage.session_id)
                        .where(ChatMessage.id == int(message_id))).first()
        if row is None or row[0].role != "assistant" or not _may_rate(s, rs, actor, row[1],
                                                                       chatbot):
            raise _not_found(message_id)
        return store_fb.put(s, row[0].id, chat_user(actor), value, note)


def feedback_of(rs, actor: Actor | None, message_ids: list[int]) -> dict[int, Feedback]:
    """The actor's own ratings of these answers (to show them under the answers)."""
    if actor is None:
        return {}
    with rs.store.session() as s:
        return store_fb.of_messages(s, [int(i) for i in message_ids], chat_user(actor))


def rated_answers(rs, actor: Actor | None, *, rating: str | None = None, text: str = "",
                  who: str = "", since: date | None = None, until: date | None = None,
                  limit: int = 200) -> list[RatedAnswer]:
    """Rated answers, newest first: an admin's view all, anyone else's their own ratings.
    Filters: rating (up/down), text in question, answer or note, rater name, days."""
    actor = access.require(actor, "view")
    scope = access.scope_of(rs, actor)
    with rs.store.session() as s:
        rows = store_fb.rated(s, rater=None if _is_dashboard_admin(actor) else chat_user(actor),
                              rating=rating or None, text=text, who=who, since=since,
                              until=until, limit=limit)
        return scope_sources(s, rows, scope)
