"""A chat that has not been asked anything yet: a draft kept in the browser session, not a
stored row. Opening the chat page (or "New chat") used to create a session row at once, so
every visit left an empty "New chat" in the sidebar; now the row is created with the first
question and named after it (`ChatService.store_turn` titles it). Settings chosen before
the first question are kept in the draft and become the new session's settings."""
from __future__ import annotations

from datetime import datetime, timezone

from backend.chat.types import SessionInfo, SessionSettings, make_title
from backend.store.chat_models import DEFAULT_TITLE

DRAFT_UUID = ""  # a draft's uuid: no row exists yet


def is_draft(sess: SessionInfo) -> bool:
    return sess.uuid == DRAFT_UUID


def draft(svc, user: str | None, values: dict | None = None) -> SessionInfo:
    """The unsaved session shown before the first question, with the settings chosen so far
    (`values`, from `settings_values`) or the defaults."""
    now = datetime.now(timezone.utc)
    return SessionInfo(DRAFT_UUID, DEFAULT_TITLE, user, settings_of(svc, values or {}), now, now)


def settings_of(svc, values: dict) -> SessionSettings:
    """Validated settings (ChatInputError naming the field otherwise); the provider defaults
    to the configured chat provider, as for a stored session."""
    values = {"provider": svc.settings.chat_default_provider, **values}
    return svc._settings(**values)


def settings_values(cfg: SessionSettings) -> dict:
    """What the browser session keeps of a draft's settings."""
    return cfg.model_dump()


def start(svc, user: str | None, values: dict | None, question: str) -> SessionInfo:
    """Store the draft as a session when its first question is asked (the question is checked
    first, so a refused question leaves nothing behind); titled after the question."""
    svc.validate_question(question)
    sess = svc.create_session(user, **(values or {}))
    return svc.rename(sess.uuid, make_title(question), user=user)


def listed(svc, user: str | None, current: str, limit: int = 50) -> list[SessionInfo]:
    """The sidebar's sessions: those with a question, plus the open one. Empty sessions left
    by earlier versions (one per visit) are not listed."""
    return [s for s in svc.list_sessions(user, limit=limit) if s.messages or s.uuid == current]
