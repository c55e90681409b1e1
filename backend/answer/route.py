"""The chat's analysis route (issue 12, part 5): questions such as "Was wurde beschlossen?",
"Welche offenen Punkte gab es?", "Fass Kapitel 2 zusammen" or "What changed between version 1
and 2?" are answered from the analysis results (extractors, summaries, comparisons,
cross-references) instead of passage retrieval, every line citing its section and page.

ChatService calls it through one hook (backend/chat/service.py):

    routed = chat_route.route(self, sess, q, scope)
    if routed.answer is not None:
        yield from chat_route.respond(self, sess, q, routed); return
    ... retrieval ...
    chat_route.note_trace(self.rs, trace_id, routed)

`route` decides: the intent (backend/answer/intents.py, German and English; specific
questions after one fact stay with retrieval), then the document — named in the question,
the only one of the kind or in the session's collections, the document of the previous
answer, else the best retrieval match that has what is asked for — and runs the analysis.
When the analysis cannot answer (nothing found about the topic, no such section, one
version only), the question goes to retrieval and the reason is kept. Either way the
stored query-debug trace starts with a `route` stage saying which route was taken and why;
a routed answer's trace holds the cited places as its hits and the stages `route`,
`document_choice` and `analysis`."""
from __future__ import annotations

import time
import uuid as uuidlib
from collections.abc import Iterator
from dataclasses import dataclass

from sqlalchemy import select

from backend.security.access import Scope
from backend.answer import analysis_answers as answers
from backend.answer import confidence
from backend.answer.compose import Place, line_citations
from backend.answer.context import (  # noqa: F401  (re-exported: the route's public names)
    MAX_CANDIDATES,
    NATURAL_KIND,
    TOPIC_DOCUMENTS,
    Answer,
    Context,
    DocInfo,
    NoRoute,
    elapsed_ms,
    language,
    previous_document,
    scope_documents,
)
from backend.answer.intents import _URL, DocCandidate, Intent, explain, has_cue
from backend.errors import AnalysisError, NotFound
from backend.ingest.dedup import base_source
from backend.retrieval import dictionary
from backend.retrieval.domain_query import repair
from backend.retrieval.types import (
    Hit,
    RetrievalParams,
    RetrievalResult,
    Stage,
    Trace,
    TraceOwner,
)

PROVIDER = "analysis"  # the provider name stored with routed answers


@dataclass
class Routed:
    intent: Intent | None
    why: str
    ms: float = 0.0
    answer: Answer | None = None
    url: str | None = None  # a URL in the question: noted, answered from passages
    inventory: bool = False  # retrieval will answer with the document list

    @property
    def label(self) -> str:
        """The answer path in the routing set's terms (eval/routing_set.yaml): passage,
        inventory, url, extract:<extractors>, summarize_document/_section, compare_versions,
        compare_documents, cross_reference."""
        if self.answer is not None and self.intent is not None:
            it = self.intent
            if it.action == "extract":
                return "extract:" + "+".join(it.extractors)
            if it.action == "summarize":
                return "summarize_section" if it.section else "summarize_document"
            return it.action
        return "url" if self.url else "inventory" if self.inventory else "passage"

    def stage(self) -> dict:
        """The `route` stage of the trace, in stored (dict) form."""
        params = {"route": "analysis" if self.answer is not None else "retrieval",
                  "path": self.label, "why": self.why}
        if self.url:
            params["url"] = self.url
        if self.intent is not None:
            params.update(action=self.intent.action, extractors=list(self.intent.extractors),
                          section=self.intent.section, topic=self.intent.topic,
                          status=self.intent.status, versions=list(self.intent.versions),
                          intent=self.intent.reason)
        return {"name": "route", "ms": round(self.ms, 3), "params": params, "candidates": [],
                "error": None, "note": self.why}


def route(chat, sess, q: str, scope: Scope) -> Routed:
    """Decide the route of a chat question; with `answer` set when the analysis answers.
    Only documents `scope` may read are candidates (the asker's scope)."""
    from backend.chat import question_url
    from backend.retrieval.query import parse_query

    t0 = time.perf_counter()
    q = repair(q)[0]  # typos -> canonical forms (config/domain/search_repair.yaml)
    url = _URL.search(q)
    passage = {"url": question_url.find_url(q) if url else None,
               "inventory": not url and parse_query(q).inventory}
    if not chat.rs.settings.chat_analysis_route and not url:
        return Routed(None, "analysis routing is off (RAGSCOPE_CHAT_ANALYSIS_ROUTE)", elapsed_ms(t0),
                      **passage)
    if url:  # a URL in the question: its page and the passages answer (issue 22, 26)
        return Routed(None, question_url.route_reason(passage["url"]), elapsed_ms(t0), **passage)
    if not has_cue(q):  # cheap first pass: most questions stop here
        return Routed(None, explain(q)[1], elapsed_ms(t0), **passage)
    docs = scope_documents(chat.rs, list(sess.settings.collections), scope)
    if not docs:
        return Routed(None, "no analysable document in the session's collections", elapsed_ms(t0),
                      **passage)
    words = dictionary.get(chat.rs.settings.dictionary_path)
    intent, why = explain(q, [DocCandidate(d.id, d.title, d.filename, d.doc_type) for d in docs],
                          verbs=(lambda w: dictionary.is_phrasing_verb(words, w)) if words else None)
    if intent is None:
        return Routed(None, why, elapsed_ms(t0), **passage)
    ctx = Context(chat, sess, q, intent, docs, scope)
    try:
        answer = answers.HANDLERS[intent.action](ctx)
    except (NoRoute, AnalysisError, NotFound) as e:
        return Routed(intent, f"{why}; not answered from the analysis: {e}", elapsed_ms(t0),
                      **passage)
    return Routed(intent, why, elapsed_ms(t0), answer)


# ---- answering ------------------------------------------------------------------------------


def _locate(rs, places: list[Place]) -> list[Hit]:
    """Each cited place as a hit: the chunk holding it (by offset, else the section's first
    chunk), with the document's title, file, version, section path and page."""
    from backend.retrieval.lookup import chunk_infos, section_paths
    from backend.store.models import Chunk

    hits: list[Hit] = []
    with rs.store.session() as s:
        paths = section_paths(s, {p.version_id for p in places})
        ids: list[str | None] = []
        for p in places:
            cid = p.chunk_id
            if cid is None and p.offset is not None:
                cid = s.scalar(select(Chunk.id).where(
                    Chunk.version_id == p.version_id, Chunk.start <= p.offset,
                    Chunk.end > p.offset).order_by(Chunk.ordinal).limit(1))
            if cid is None and p.section_id is not None:
                cid = s.scalar(select(Chunk.id).where(Chunk.section_id == p.section_id)
                               .order_by(Chunk.ordinal).limit(1))
            if cid is None:
                cid = s.scalar(select(Chunk.id).where(Chunk.version_id == p.version_id)
                               .order_by(Chunk.ordinal).limit(1))
            ids.append(cid)
        infos = chunk_infos(s, [i for i in ids if i])
    for n, (p, cid) in enumerate(zip(places, ids), 1):
        info = infos.get(cid) if cid else None
        path, title = (paths.get(p.section_id) or ([], ""))[:2] if p.section_id else ([], "")
        hits.append(Hit(
            chunk_id=cid or "", document_id=p.document_id, version_id=p.version_id,
            text=(p.text or "")[:600], rank=n, score=round(float(p.score), 6),
            document_title=info.title if info else "", filename=info.filename if info else "",
            version_number=info.version_number if info else None,
            doc_type=info.doc_type if info else "", file_type=info.file_type if info else "",
            section_id=p.section_id, section_title=title,
            section_path=list(p.section_path or path), page=p.page,
            start=p.offset or 0, end=(p.offset or 0) + len(p.text or ""),
            original_path=info.original_path if info else None,
            source_uri=base_source(info.source_uri) if info else ""))
    return hits


def _source(n: int, h: Hit) -> dict:
    return {"n": n, "chunk_id": h.chunk_id, "document_id": h.document_id,
            "title": h.document_title or h.filename, "filename": h.filename,
            "version": h.version_number, "version_id": h.version_id, "section_id": h.section_id,
            "breadcrumb": h.breadcrumb, "section_path": list(h.section_path), "page": h.page,
            "score": h.score, "original_path": h.original_path, "source_uri": h.source_uri,
            "cited": False}


def respond(chat, sess, q: str, routed: Routed) -> Iterator:
    """The chat events of a routed answer (Retrieved, Delta, Answered), the answer stored
    like any other (citations checked, sources indexed for deletes) with its trace."""
    from backend.chat.profiles import apply_session_format
    from backend.chat.types import Delta, Retrieved
    from backend.llm.tokens import count_tokens
    from backend.retrieval.traces import save_trace

    t0 = time.perf_counter()
    a = routed.answer
    cfg = sess.settings
    hits = _locate(chat.rs, a.places)
    sources = [_source(n, h) for n, h in enumerate(hits, 1)]
    route_stage = routed.stage()
    trace = Trace(str(uuidlib.uuid4()), q, [Stage(**route_stage)] + a.stages)
    trace.total_ms = round(routed.ms + elapsed_ms(t0), 3)
    result = RetrievalResult(q, RetrievalParams(policy=cfg.policy, k=max(1, min(200, len(hits))),
                                                persist_trace=True),
                             hits, trace, mode="analysis", language=language(q),
                             warnings=list(a.notes))
    owner = TraceOwner.user(sess.user) if sess.user else TraceOwner.system("cli")
    trace_id = save_trace(chat.rs.store, result, owner)
    retrieval_ms = round(routed.ms + elapsed_ms(t0), 3)
    yield Retrieved(sources, trace_id, retrieval_ms)
    yield Delta(a.text)
    text, fmt = apply_session_format(chat.rs, cfg, a.text)
    citations = line_citations(text, len(sources))
    citations.update(confidence.fields(None, sources, q, False, analysis=True))
    for src in sources:
        src["cited"] = src["n"] in citations["cited"]
    notice = " ".join(["Answered from the document analysis (" + routed.intent.action + "), "
                       "not from passage retrieval."] + a.notes)
    yield chat.store_turn(
        sess.uuid, q, cfg, content=text, sources=sources, citations=citations,
        format_check=fmt, provider=PROVIDER, model=a.model, tokens_input=count_tokens(q),
        tokens_output=count_tokens(text), tokens_counted_locally=True, cost_usd=0.0,
        cost_label="local", latency_ms=round(routed.ms + elapsed_ms(t0), 3), first_token_ms=None,
        retrieval_ms=retrieval_ms, trace_id=trace_id, fallback=False, notice=notice)


def note_trace(rs, trace_id: str | None, routed: Routed) -> None:
    """Put the `route` stage (retrieval, and why) in front of a stored retrieval trace."""
    from backend.retrieval.traces import put_stage

    put_stage(rs.store, trace_id, routed.stage(), first=True)
