"""Automatic critique of generated chat answers (issue 26.1, RAGSCOPE_CRITIQUE_AUTO).

`with_critique` wraps a chat's event stream (the API's `ask_stream`, the dashboard's ask
jobs): when the stored answer was written by an LLM (not the extractive answerer, not a
fallback to it, not the "nothing found" abstention) it yields `Critiquing`, runs the active
critics over the stored message (`critique.critique_message`, the same rounds as on demand)
and yields the `Answered` the user reads:

- run `revised`: the stored message's content becomes the revision (the original stays in
  the critique run), its citations are checked again on the new text and its sources'
  quotes re-attached, so [n] stay valid and point at what the revision says;
- run `validated` or `failed`: the answer stays as it was;
- no run (no critic active, no LLM provider to critique with): the answer stays.

Either way the message's citations carry `critique: {run_id, status, rounds, revisions,
error}`, which the chat page shows ("revised after critique (round k)") and which keeps a
message from being critiqued twice. A failure of the critique never loses the answer: it is
stored before the critique starts."""
from __future__ import annotations

import dataclasses
import logging
from typing import Iterator

from backend.chat import citations as chat_citations
from backend.chat.prompt import check_citations
from backend.chat.types import Answered, Critiquing, MessageInfo
from backend.errors import RagscopeError
from backend.security.access import Actor
from backend.services import critique
from backend.store.chat_models import ChatMessage

log = logging.getLogger("backend.services.auto_critique")

# the support check was made on the original sentences: it does not describe a revision
STALE_AFTER_REVISION = ("support", "unsupported_sentences")


def wanted(rs, message: MessageInfo) -> bool:
    """Whether a stored answer is critiqued automatically: the setting is on and the answer
    is an LLM's own (the extractive answerer cannot critique and is not revised)."""
    cites = message.citations or {}
    return bool(rs.settings.critique_auto and message.role == "assistant"
                and message.provider not in ("", "extractive") and not message.fallback
                and not cites.get("abstained") and "critique" not in cites)


def with_critique(rs, actor: Actor, events: Iterator, *, provider_factory=None) -> Iterator:
    """`events` as they come; the final `Answered` after its critique when `wanted`."""
    for ev in events:
        if isinstance(ev, Answered) and wanted(rs, ev.message):
            yield Critiquing(ev.message.id)
            ev = Answered(critique_answer(rs, actor, ev.message, provider_factory),
                          ev.session)
        yield ev


def critique_answer(rs, actor: Actor, message: MessageInfo,
                    provider_factory=None) -> MessageInfo:
    """Critique the stored `message`, store the outcome on it, return it as it now is."""
    try:
        run = critique.critique_message(rs, actor, message.id,
                                        provider_factory=provider_factory)
    except RagscopeError as e:  # no critic active, no provider: the answer stays
        log.info("answer %s not critiqued: %s", message.id, e)
        return _store(rs, message, None, {"status": "skipped", "error": str(e)})
    except Exception as e:  # noqa: BLE001 - the answer is stored; it must still be shown
        log.error("critique of answer %s failed", message.id, exc_info=e)
        return _store(rs, message, None, {"status": "skipped",
                                          "error": "the critique could not be completed"})
    revisions = [r["round"] for r in run["critique_rounds"] if r["revision"]]
    mark = {"run_id": run["id"], "status": run["status"], "rounds": run["rounds"],
            "revisions": len(revisions), "revised_in_round": revisions[-1] if revisions
            else None, "error": run["error"] or None}
    text = run["final_text"] if run["status"] == "revised" else None
    return _store(rs, message, text, mark)


def _store(rs, message: MessageInfo, text: str | None, mark: dict) -> MessageInfo:
    """Write the mark (and the revision with its re-checked citations) onto the message."""
    with rs.store.session() as s:
        row = s.get(ChatMessage, message.id)
        cites = dict(row.citations or {})
        sources = [dict(src) for src in row.sources or []]
        if text is not None:
            for key in STALE_AFTER_REVISION:
                cites.pop(key, None)
            cites.update(check_citations(text, len(sources)))
            for src in sources:
                src["cited"] = src.get("n") in cites["cited"]
            row.content = text
            row.sources = chat_citations.attach(s, text, sources)
        cites["critique"] = mark
        row.citations = cites
        return dataclasses.replace(message, content=row.content, citations=cites,
                                   sources=list(row.sources or []))
