"""The chat's sessions (UUID, title, per-session settings; stored, so they survive
restarts) and their messages: create, list, rename, configure and delete a session, read its
messages within the reader's scope, and store an answered turn.

`ChatSessions` is the storage half of `ChatService` (backend/chat/service.py, the answering
half, extends it): a session store needs the service container `rs` (its store and settings)
and nothing of the answer path."""
from __future__ import annotations

import uuid as uuidlib

from pydantic import ValidationError
from sqlalchemy import Integer, func, select

from backend.chat import citations as cite
from backend.chat.profiles import InvalidProfile, check_profile_id
from backend.chat.sources import record_sources, scope_sources
from backend.chat.types import (
    SETTING_FIELDS,
    Answered,
    ChatInputError,
    MessageInfo,
    SessionInfo,
    SessionSettings,
    make_title,
)
from backend.errors import NotFound
from backend.security.access import Scope
from backend.store.chat_models import DEFAULT_TITLE, ChatMessage, ChatSession
from backend.store.models import utcnow


def _check_profile(s, cfg: SessionSettings) -> None:
    """A session never points at a profile that does not exist."""
    try:
        check_profile_id(s, cfg.profile_id)
    except InvalidProfile as e:
        err = ChatInputError(str(e))
        err.field = e.field  # the API's 422 names it
        raise err from e


def _message_info(m: ChatMessage) -> MessageInfo:
    return MessageInfo(**{f: getattr(m, f) for f in MessageInfo.__dataclass_fields__})


class ChatSessions:
    """The sessions and messages of the chat, in the store of `rs`."""

    def __init__(self, rs):
        self.rs = rs

    @property
    def settings(self):
        """The services' settings now: run-time overrides apply to the next question."""
        return self.rs.settings

    def _settings(self, **values) -> SessionSettings:
        try:
            return SessionSettings(**values)
        except ValidationError as e:
            raise ChatInputError("; ".join(f"{'.'.join(map(str, x['loc']))}: {x['msg']}"
                                           for x in e.errors())) from e

    def create_session(self, user: str | None = None, *, chatbot_id: int | None = None,
                       **settings) -> SessionInfo:
        """`chatbot_id`: a chatbot's conversation (backend/chatbots), kept out of the chat
        page's session list."""
        settings.setdefault("provider", self.settings.chat_default_provider)
        cfg = self._settings(**settings)
        with self.rs.store.session() as s:
            _check_profile(s, cfg)
            row = ChatSession(uuid=str(uuidlib.uuid4()), user=user, title=DEFAULT_TITLE,
                              chatbot_id=chatbot_id, **cfg.model_dump())
            s.add(row)
            s.flush()
            return self._info(s, row)

    def _row(self, s, uuid: str, user: str | None = None) -> ChatSession:
        row = s.scalar(select(ChatSession).where(ChatSession.uuid == str(uuid)))
        if row is None or (user is not None and row.user not in (None, user)):
            raise NotFound(f"chat session {uuid} does not exist (any more)")
        return row

    def _info(self, s, row: ChatSession, totals: tuple | None = None) -> SessionInfo:
        if totals is None:
            totals = s.execute(self._totals_query().where(
                ChatMessage.session_id == row.id)).first()
            totals = tuple(totals[1:]) if totals else (0, 0, 0, 0.0, 0)
        n, tin, tout, cost, unknown = totals
        return SessionInfo(row.uuid, row.title, row.user,
                           SessionSettings(**{f: getattr(row, f) for f in SETTING_FIELDS}),
                           row.created_at, row.last_activity, int(n or 0), int(tin or 0),
                           int(tout or 0), float(cost or 0.0), bool(unknown), row.chatbot_id)

    @staticmethod
    def _totals_query():
        return select(ChatMessage.session_id, func.count(ChatMessage.id),
                      func.sum(ChatMessage.tokens_input), func.sum(ChatMessage.tokens_output),
                      func.sum(ChatMessage.cost_usd),
                      func.sum((ChatMessage.cost_label == "unknown").cast(Integer)))\
            .group_by(ChatMessage.session_id)

    def get_session(self, uuid: str, *, user: str | None = None) -> SessionInfo:
        """NotFound when it does not exist, or belongs to another user (when `user` is given)."""
        with self.rs.store.session() as s:
            return self._info(s, self._row(s, uuid, user))

    def list_sessions(self, user: str | None = None, limit: int = 100) -> list[SessionInfo]:
        """Most recent activity first; only `user`'s sessions when a user is given."""
        with self.rs.store.session() as s:
            q = select(ChatSession).where(ChatSession.chatbot_id.is_(None)).order_by(
                ChatSession.last_activity.desc(), ChatSession.id.desc()).limit(limit)
            if user is not None:
                q = q.where(ChatSession.user == user)
            rows = list(s.scalars(q))
            totals = {r[0]: tuple(r[1:]) for r in s.execute(self._totals_query().where(
                ChatMessage.session_id.in_([r.id for r in rows])))}
            return [self._info(s, r, totals.get(r.id, (0, 0, 0, 0.0, 0))) for r in rows]

    def fresh_session(self, user: str | None = None) -> SessionInfo:
        """The user's newest session without messages, else a new one: opening the chat
        page again and again does not pile up empty sessions."""
        with self.rs.store.session() as s:
            q = (select(ChatSession).where(~ChatSession.messages.any(),
                                           ChatSession.chatbot_id.is_(None))
                 .order_by(ChatSession.last_activity.desc()).limit(1))
            q = q.where(ChatSession.user == user) if user else q.where(ChatSession.user.is_(None))
            row = s.scalar(q)
            if row is not None:
                return self._info(s, row)
        return self.create_session(user)

    def rename(self, uuid: str, title: str, *, user: str | None = None) -> SessionInfo:
        title = " ".join((title or "").split())[:255]
        if not title:
            raise ChatInputError("the title must not be empty")
        with self.rs.store.session() as s:
            row = self._row(s, uuid, user)
            row.title = title
            return self._info(s, row)

    def update_settings(self, uuid: str, *, user: str | None = None, **changes) -> SessionInfo:
        with self.rs.store.session() as s:
            row = self._row(s, uuid, user)
            current = {f: getattr(row, f) for f in SETTING_FIELDS}
            cfg = self._settings(**{**current, **changes})
            _check_profile(s, cfg)
            for k, v in cfg.model_dump().items():
                setattr(row, k, v)
            return self._info(s, row)

    def delete_session(self, uuid: str, *, user: str | None = None) -> None:
        with self.rs.store.session() as s:
            s.delete(self._row(s, uuid, user))  # messages: ON DELETE CASCADE

    def messages(self, uuid: str, *, scope: Scope, user: str | None = None) -> list[MessageInfo]:
        """The session's messages; sources of documents outside `scope` are blanked."""
        with self.rs.store.session() as s:
            row = self._row(s, uuid, user)
            infos = [_message_info(m) for m in s.scalars(
                select(ChatMessage).where(ChatMessage.session_id == row.id)
                .order_by(ChatMessage.id))]
            return scope_sources(s, infos, scope)

    def store_turn(self, uuid: str, q: str, cfg: SessionSettings, **answer) -> Answered:
        """Store a question and its answer (`answer`: the assistant message's columns) in the
        session: the first question titles an untitled session, the answer's sources get
        their citation fields (passage, quote, offsets, page, preview; backend/chat/citations.py)
        and are indexed for deletes (backend/chat/sources.py)."""
        with self.rs.store.session() as s:
            row = self._row(s, uuid)
            answer["sources"] = cite.attach(s, answer.get("content") or "",
                                            list(answer.get("sources") or []))
            now = utcnow()
            if not s.scalar(select(func.count(ChatMessage.id)).where(
                    ChatMessage.session_id == row.id)) and row.title == DEFAULT_TITLE:
                row.title = make_title(q)
            row.last_activity = now
            s.add(ChatMessage(session_id=row.id, role="user", content=q,
                              collections=list(cfg.collections), created_at=now))
            msg = ChatMessage(session_id=row.id, role="assistant",
                              collections=list(cfg.collections), created_at=now, **answer)
            s.add(msg)
            s.flush()
            record_sources(s, msg)
            return Answered(_message_info(msg), self._info(s, row))
