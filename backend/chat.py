"""The chat: sessions (UUID, title, per-session settings; stored, so they survive restarts),
and answering through the one retrieval module with a streaming provider.

`ChatService(rs).ask_stream(uuid, question)` yields `Retrieved` (the numbered sources and the
trace id), `Delta`s of answer text, at most one `Fallback` (the provider failed: discard the
text so far, the extractive answer follows, marked as such) and finally `Answered` with the
stored message: citation check, format check, tokens in/out, cost, model and latency."""
from __future__ import annotations

import time
import uuid as uuidlib
from typing import Callable, Iterator

from pydantic import ValidationError
from sqlalchemy import Integer, func, select

from backend.chat_prompt import build_prompt, check_citations
from backend.chat_types import (  # noqa: F401  (re-exported: the chat's public names)
    CONTEXT_LIMITS,
    SETTING_FIELDS,
    Answered,
    ChatInputError,
    Delta,
    Fallback,
    MessageInfo,
    Retrieved,
    SessionInfo,
    SessionSettings,
    make_title,
)
from backend.errors import NotFound, ProviderUnavailable
from backend.format_check import apply_profile
from backend.llm import default_model, make_provider
from backend.llm.base import Evidence, GenerationRequest, Provider, StreamEnd, TextDelta
from backend.llm.extractive import ExtractiveProvider
from backend.llm.pricing import pricing_table
from backend.llm.tokens import count_tokens
from backend.retrieval import Retriever, RetrievalParams
from backend.store import repo
from backend.store.chat_models import DEFAULT_TITLE, ChatMessage, ChatSession
from backend.store.models import utcnow

def _message_info(m: ChatMessage) -> MessageInfo:
    return MessageInfo(**{f: getattr(m, f) for f in MessageInfo.__dataclass_fields__})


def _source(n: int, hit) -> dict:
    return {"n": n, "chunk_id": hit.chunk_id, "document_id": hit.document_id,
            "title": hit.document_title or hit.filename, "filename": hit.filename,
            "version": hit.version_number, "breadcrumb": hit.breadcrumb,
            "section_path": list(hit.section_path), "page": hit.page,
            "score": round(float(hit.score), 6), "original_path": hit.original_path,
            "source_uri": hit.source_uri, "cited": False}


class ChatService:
    def __init__(self, rs, provider_factory: Callable[[str], Provider] | None = None):
        self.rs = rs
        self.settings = rs.settings
        self._provider_factory = provider_factory or (lambda n: make_provider(self.settings, n))

    # ---- sessions ------------------------------------------------------------------------

    def _settings(self, **values) -> SessionSettings:
        try:
            return SessionSettings(**values)
        except ValidationError as e:
            raise ChatInputError("; ".join(f"{'.'.join(map(str, x['loc']))}: {x['msg']}"
                                           for x in e.errors())) from e

    def create_session(self, user: str | None = None, **settings) -> SessionInfo:
        settings.setdefault("provider", self.settings.chat_default_provider)
        cfg = self._settings(**settings)
        with self.rs.store.session() as s:
            row = ChatSession(uuid=str(uuidlib.uuid4()), user=user, title=DEFAULT_TITLE,
                              **cfg.model_dump())
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
                           int(tout or 0), float(cost or 0.0), bool(unknown))

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
            q = select(ChatSession).order_by(ChatSession.last_activity.desc(),
                                             ChatSession.id.desc()).limit(limit)
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
            q = (select(ChatSession).where(~ChatSession.messages.any())
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
            for k, v in cfg.model_dump().items():
                setattr(row, k, v)
            return self._info(s, row)

    def delete_session(self, uuid: str, *, user: str | None = None) -> None:
        with self.rs.store.session() as s:
            s.delete(self._row(s, uuid, user))  # messages: ON DELETE CASCADE

    def messages(self, uuid: str, *, user: str | None = None) -> list[MessageInfo]:
        with self.rs.store.session() as s:
            row = self._row(s, uuid, user)
            return [_message_info(m) for m in s.scalars(
                select(ChatMessage).where(ChatMessage.session_id == row.id)
                .order_by(ChatMessage.id))]

    # ---- answering -----------------------------------------------------------------------

    def validate_question(self, question: str | None) -> str:
        q = (question or "").strip()
        if not q:
            raise ChatInputError("The message is empty: type a question.")
        limit = self.settings.chat_max_message_chars
        if len(q) >= limit:
            raise ChatInputError(f"The message has {len(q):,} characters; messages must be "
                                 f"shorter than {limit:,} characters.")
        return q

    def ask(self, uuid: str, question: str, *, user: str | None = None) -> Answered:
        last = None
        for event in self.ask_stream(uuid, question, user=user):
            last = event
        assert isinstance(last, Answered)
        return last

    def ask_stream(self, uuid: str, question: str, *,
                   user: str | None = None) -> Iterator[Retrieved | Delta | Fallback | Answered]:
        q = self.validate_question(question)
        sess = self.get_session(uuid, user=user)
        cfg = sess.settings
        t0 = time.perf_counter()
        hits, trace_id, notes = self._retrieve(q, cfg)
        retrieval_ms = _ms(t0)
        chars = self.settings.chat_source_chars
        evidence = [Evidence(n, h.context[:chars], h.document_title or h.filename,
                             h.breadcrumb, h.page, float(h.score))
                    for n, h in enumerate(hits, 1)]
        sources = [_source(n, h) for n, h in enumerate(hits, 1)]
        yield Retrieved(sources, trace_id, retrieval_ms)

        prompt = build_prompt(q, evidence, system_prompt=cfg.system_prompt,
                              history=self._history(sess.uuid))
        request = GenerationRequest(
            model=cfg.model or default_model(self.settings, cfg.provider), system=prompt.system,
            messages=prompt.messages, question=q, evidence=evidence,
            temperature=cfg.temperature, max_tokens=cfg.max_tokens)
        provider, fallback = self._provider_factory(cfg.provider), False
        gen = _Generation()
        try:
            yield from gen.run(provider, request)
        except ProviderUnavailable as e:
            fallback = True
            notes.append(f"{e}. Showing the extractive answer instead (no model involved).")
            yield Fallback(notes[-1])
            provider, gen = ExtractiveProvider(), _Generation()
            yield from gen.run(provider, request)
        latency_ms = _ms(t0)

        text, fmt = apply_profile(gen.text, cfg.answer_profile)
        citations = check_citations(text, len(sources))
        for src in sources:
            src["cited"] = src["n"] in citations["cited"]
        end = gen.end or StreamEnd(model=request.model)
        model = "extractive" if provider.name == "extractive" else end.model or request.model
        tin, tout = end.input_tokens, end.output_tokens
        counted = tin is None or tout is None
        if tin is None:
            tin = count_tokens(prompt.render() if provider.name != "extractive" else
                               "\n".join([q] + [e.text for e in evidence]))
        if tout is None:
            tout = count_tokens(text)
        cost = pricing_table(self.settings.pricing_file).cost(
            provider.name, model, tin, tout, provider_is_local=provider.local)
        with self.rs.store.session() as s:
            row = self._row(s, sess.uuid)
            now = utcnow()
            if not s.scalar(select(func.count(ChatMessage.id)).where(
                    ChatMessage.session_id == row.id)) and row.title == DEFAULT_TITLE:
                row.title = make_title(q)
            row.last_activity = now
            s.add(ChatMessage(session_id=row.id, role="user", content=q,
                              collections=list(cfg.collections), created_at=now))
            msg = ChatMessage(
                session_id=row.id, role="assistant", content=text, sources=sources,
                citations=citations, format_check=fmt, collections=list(cfg.collections),
                provider=provider.name, model=model, tokens_input=tin, tokens_output=tout,
                tokens_counted_locally=counted, cost_usd=cost.usd, cost_label=cost.label,
                latency_ms=latency_ms, first_token_ms=gen.first_token_ms,
                retrieval_ms=retrieval_ms, trace_id=trace_id,
                fallback=fallback, notice=" ".join(notes) or None, created_at=now)
            s.add(msg)
            s.flush()
            info = _message_info(msg)
            session = self._info(s, row)
        yield Answered(info, session)

    def _retrieve(self, q: str, cfg: SessionSettings) -> tuple[list, str | None, list[str]]:
        """Hits, trace id and notes. Collections deleted since the session chose them are
        left out (and named); when none is left there is nothing to search."""
        notes, collections = [], cfg.collections or None
        if collections:
            with self.rs.store.session() as s:
                known = {c.name for c, _ in repo.list_collections(s)}
            gone = [c for c in collections if c not in known]
            collections = [c for c in collections if c in known]
            if gone:
                notes.append(f"Collection(s) no longer there: {', '.join(gone)}.")
            if not collections:
                return [], None, notes
        result = Retriever(self.rs).retrieve(q, RetrievalParams(
            policy=cfg.policy, k=cfg.context_limit, collections=collections,
            persist_trace=True))
        return result.hits[:cfg.context_limit], result.trace.id, notes

    def _history(self, uuid: str) -> list[tuple[str, str]]:
        turns = self.settings.chat_history_turns
        if not turns:
            return []
        with self.rs.store.session() as s:
            row = self._row(s, uuid)
            rows = list(s.scalars(select(ChatMessage).where(ChatMessage.session_id == row.id)
                                  .order_by(ChatMessage.id.desc()).limit(2 * turns)))[::-1]
        pairs, pending = [], None
        for m in rows:
            if m.role == "user":
                pending = m.content
            elif pending is not None:
                pairs.append((pending, m.content))
                pending = None
        return pairs[-turns:]


class _Generation:
    """Collects one provider stream: text, time to first token, the StreamEnd."""

    def __init__(self):
        self.parts: list[str] = []
        self.first_token_ms: float | None = None
        self.end = None

    @property
    def text(self) -> str:
        return "".join(self.parts).strip()

    def run(self, provider: Provider, request: GenerationRequest) -> Iterator[Delta]:
        t0 = time.perf_counter()
        for event in provider.stream(request):
            if isinstance(event, TextDelta):
                if self.first_token_ms is None:
                    self.first_token_ms = _ms(t0)
                self.parts.append(event.text)
                yield Delta(event.text)
            else:
                self.end = event


def _ms(t0: float) -> float:
    return round((time.perf_counter() - t0) * 1000, 3)

