"""The ask stream's events as the API sends them (`/api/ask`, `/api/ask-sse` and the stored
events of `/api/ask-jobs`): a chat event becomes (event name, JSON data), and that an SSE
frame, with its event id when it has one (replayable jobs)."""
from __future__ import annotations

import json

from backend.api import serialise
from backend.chat.types import Answered, Critiquing, Delta, Fallback, Retrieved


def encode(ev) -> tuple[str, dict] | None:
    """(name, data) of a chat event: `sources`, `delta`, `notice`, `status` (critiquing),
    `answer`; None for others."""
    if isinstance(ev, Retrieved):
        return "sources", {"sources": [serialise.public_source(s) for s in ev.sources],
                           "retrieval_ms": ev.retrieval_ms}
    if isinstance(ev, Delta):
        return "delta", {"text": ev.text}
    if isinstance(ev, Fallback):
        return "notice", {"message": ev.notice}
    if isinstance(ev, Critiquing):  # RAGSCOPE_CRITIQUE_AUTO: the answer is being critiqued
        return "status", {"phase": "critiquing", "message_id": ev.message_id}
    if isinstance(ev, Answered):
        return "answer", serialise.answer(ev.session.uuid, ev.message,
                                          ev.session.settings.context_mode)
    return None


def frame(event: str, data: dict | str, event_id: int | None = None) -> str:
    """One SSE frame; `data` as a dict or as JSON already encoded (stored events)."""
    body = data if isinstance(data, str) else json.dumps(data, ensure_ascii=False, default=str)
    head = f"id: {event_id}\n" if event_id is not None else ""
    return f"{head}event: {event}\ndata: {body}\n\n"


STREAM_ERROR = {"error": {"code": "internal_error", "field": None,
                          "message": "the answer could not be completed"}}
