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
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

from sqlalchemy import func, select

from backend.access import Scope
from backend.answer import analysis_answers as answers
from backend.answer.compose import Place, line_citations
from backend.answer.intents import _URL, DocCandidate, Intent, explain, has_cue
from backend.analysis.types import DOC_KINDS
from backend.errors import AnalysisError, NotFound
from backend.ingest.dedup import base_source
from backend.retrieval.types import (
    Hit,
    RetrievalParams,
    RetrievalResult,
    Stage,
    Trace,
    TraceOwner,
)

# the kind of document that usually holds an extractor's items: tried first among the
# documents retrieval did not reach
NATURAL_KIND = {"decisions": "minutes", "meeting_actions": "minutes", "setup_steps": "manual",
                "config_keys": "manual", "api_surface": "manual", "operational_notes": "manual",
                "requirements": "policy"}
PROVIDER = "analysis"  # the provider name stored with routed answers
MAX_CANDIDATES = 30  # documents checked, in retrieval order, when the question names none
# A question with a topic ("What was decided about TLS?") that names no document is about the
# documents retrieval ranks highest for it: only these are checked, so a list is never taken
# from a far-down document that happens to mention the topic (issue 22; chosen on the
# routing set's tune split, docs/chat.md "Routing")
TOPIC_DOCUMENTS = 3  # 1, 2, 3 and 5 all scored 1.0 on tune: the middle, so lists may span docs


@dataclass
class Answer:
    text: str
    places: list[Place]
    stages: list[Stage]
    notes: list[str] = field(default_factory=list)
    model: str = "rules"


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


@dataclass(frozen=True)
class DocInfo:
    id: int
    title: str
    filename: str
    doc_type: str
    versions: int  # indexed versions


class NoRoute(Exception):
    """The analysis cannot answer this question; the message says why (for the trace)."""


def _ms(t0: float) -> float:
    return round((time.perf_counter() - t0) * 1000, 3)


def language(q: str) -> str:
    from backend.ingest.language import detect_language

    lang = detect_language(q)
    if lang:
        return lang
    import re

    return "de" if re.search(r"\b(?:fass\w*|zusammen|kapitel|abschnitt|zeig\w*|nenn\w*|"
                             r"liste|welche\w*|bitte)\b|[äöüß]", q, re.IGNORECASE) else "en"


# ---- deciding -------------------------------------------------------------------------------


def scope_documents(rs, collections: list[str], scope: Scope) -> list[DocInfo]:
    """Active documents with an indexed version, in the session's collections (all when the
    session names none), among those `scope` may read (backend/access.py): the route never
    picks, names or counts another document."""
    from backend.access import visible_documents
    from backend.store import repo
    from backend.store.models import Document, DocumentVersion

    with rs.store.session() as s:
        q = (select(Document.id, Document.title, Document.filename, Document.doc_type,
                    func.count(DocumentVersion.id))
             .join(DocumentVersion, DocumentVersion.document_id == Document.id)
             .where(DocumentVersion.status == "indexed", Document.status == "active")
             .group_by(Document.id, Document.title, Document.filename, Document.doc_type))
        if collections:
            ids = repo.document_ids(s, repo.DocumentFilter(collections=collections))
            q = q.where(Document.id.in_(ids))
        return [DocInfo(*r) for r in s.execute(visible_documents(q, scope))]


class Context:
    """One question on its way through the route: the chat service, session, intent and
    the documents in scope; handlers (backend/answer/analysis_answers.py) read it."""

    def __init__(self, chat, sess, q: str, intent: Intent, docs: list[DocInfo], scope: Scope):
        self.chat, self.rs, self.sess, self.q, self.intent = chat, chat.rs, sess, q, intent
        self.scope = scope  # what the asker may read: every analysis call gets it
        self.docs = {d.id: d for d in docs}
        self.lang = language(q)
        self.limit = chat.rs.settings.chat_analysis_items
        self.collections = list(sess.settings.collections)
        self.also: list[int] = []  # other documents that could answer (see choose)

    def title(self, doc_id: int) -> str:
        d = self.docs.get(doc_id)
        return (d.title or d.filename) if d else str(doc_id)

    def choose(self, accept: Callable[[int], object], what: str):
        """(document id, what `accept` returned for it, stage). `accept(doc)` returns a
        payload when the document can answer, else None. Raises NoRoute. When retrieval
        picked the document, the other candidates that could answer too are named in
        `self.also` (document ids), so the answer can say where else to look."""
        t0 = time.perf_counter()
        it, checked = self.intent, []

        def done(doc: int, payload, why: str, **extra):
            return doc, payload, Stage("document_choice", _ms(t0), {
                "document_id": doc, "why": why, "checked": checked, **extra}, note=why)

        if it.document is not None:
            if it.document not in self.docs:
                raise NoRoute(f"document {it.document} is not in the session's collections")
            checked.append(it.document)
            return done(it.document, accept(it.document), it.reason.split("; ")[-1])
        if it.named:  # named equally well: one of these, never the previous answer's document
            for doc in it.named:
                if doc in self.docs:
                    checked.append(doc)
                    payload = accept(doc)
                    if payload is not None:
                        return done(doc, payload, f"the first of the documents named in the "
                                    f"question ({', '.join(map(str, it.named))}) with {what}")
            raise NoRoute(f"none of the documents named in the question "
                          f"({', '.join(map(str, it.named))}) has {what}")
        if len(self.docs) == 1:
            only = next(iter(self.docs))
            checked.append(only)
            return done(only, accept(only), "the only document in the session's scope")
        prev = previous_document(self.rs, self.sess.uuid)
        if prev in self.docs:
            checked.append(prev)
            payload = accept(prev)
            if payload is not None:
                return done(prev, payload, "the document of the previous answer")
        ranked, retrieved = self.ranked()
        if it.topic:
            ranked = [d for d in ranked if d in retrieved][:TOPIC_DOCUMENTS]
        first = None
        for rank, doc in enumerate(ranked[:MAX_CANDIDATES], 1):
            if doc in checked:
                continue
            checked.append(doc)
            payload = accept(doc)
            if payload is None:
                continue
            if first is None:
                how = "retrieval rank" if doc in retrieved else "kind and recency"
                first = (doc, payload, (f"the first document with {what} by {how} "
                                       f"(candidate {rank} of {min(len(ranked), MAX_CANDIDATES)})"))
            else:
                self.also.append(doc)
        if first is None:
            raise NoRoute(f"none of the {len(checked)} documents checked has {what}")
        return done(*first, ranked=ranked[:MAX_CANDIDATES], also=list(self.also))

    def also_note(self, what: str) -> list[str]:
        if not self.also:
            return []
        names = "; ".join(f"{self.title(d)} (document {d})" for d in self.also[:5])
        return [(f"Also with {what}: {names}. Name the document in the question to see its "
                "list.")]

    def ranked(self) -> tuple[list[int], set[int]]:
        """Documents in scope by how well the question retrieves them; the question's kind
        of document ("im Protokoll") first; documents retrieval did not reach follow."""
        from backend.retrieval import Retriever

        it = self.intent
        kinds = DOC_KINDS.get(it.doc_type or "", ())
        params = RetrievalParams(policy=self.sess.settings.policy, k=30,
                                 collections=self.known_collections() or None,
                                 doc_types=list(kinds) or None, inventory="off")
        order: list[int] = []
        try:
            for h in Retriever(self.rs).retrieve(self.q, params, scope=self.scope).hits:
                if h.document_id in self.docs and h.document_id not in order:
                    order.append(h.document_id)
        except NotFound:
            pass
        retrieved = set(order)
        kind = it.doc_type or (NATURAL_KIND.get(it.extractors[0]) if it.extractors else None)
        of_kind = set(DOC_KINDS.get(kind or "", ()))
        rest = sorted((d for d in self.docs.values() if d.id not in retrieved),
                      key=lambda d: (bool(of_kind) and d.doc_type not in of_kind, -d.id))
        if it.doc_type:
            order = [d for d in order if self.docs[d].doc_type in kinds] + \
                [d for d in order if self.docs[d].doc_type not in kinds]
        return order + [d.id for d in rest], retrieved

    def known_collections(self) -> list[str]:
        if not self.collections:
            return []
        from backend.store import repo

        with self.rs.store.session() as s:
            known = {c.name for c, _ in repo.list_collections(s)
                     if self.scope.can_read(c.name)}
        return [c for c in self.collections if c in known]


def previous_document(rs, session_uuid: str) -> int | None:
    """The document the session's last answer drew on (its first cited source)."""
    from backend.store.chat_models import ChatMessage, ChatSession

    with rs.store.session() as s:
        m = s.scalar(select(ChatMessage).join(ChatSession)
                     .where(ChatSession.uuid == session_uuid, ChatMessage.role == "assistant")
                     .order_by(ChatMessage.id.desc()).limit(1))
        sources = list(m.sources or []) if m is not None else []
    ranked = [x for x in sources if x.get("cited")] + [x for x in sources if not x.get("cited")]
    for x in ranked:
        if x.get("document_id") is not None and not x.get("deleted"):
            return int(x["document_id"])
    return None


def route(chat, sess, q: str, scope: Scope) -> Routed:
    """Decide the route of a chat question; with `answer` set when the analysis answers.
    Only documents `scope` may read are candidates (the asker's scope)."""
    from backend.retrieval.query import parse_query

    t0 = time.perf_counter()
    url = _URL.search(q)
    passage = {"url": url.group(0) if url else None,
               "inventory": not url and parse_query(q).inventory}
    if not chat.rs.settings.chat_analysis_route:
        return Routed(None, "analysis routing is off (RAGSCOPE_CHAT_ANALYSIS_ROUTE)", _ms(t0),
                      **passage)
    if url or not has_cue(q):  # cheap first pass: most questions stop here
        return Routed(None, explain(q)[1], _ms(t0), **passage)
    docs = scope_documents(chat.rs, list(sess.settings.collections), scope)
    if not docs:
        return Routed(None, "no analysable document in the session's collections", _ms(t0),
                      **passage)
    intent, why = explain(q, [DocCandidate(d.id, d.title, d.filename, d.doc_type) for d in docs])
    if intent is None:
        return Routed(None, why, _ms(t0), **passage)
    ctx = Context(chat, sess, q, intent, docs, scope)
    try:
        answer = answers.HANDLERS[intent.action](ctx)
    except (NoRoute, AnalysisError, NotFound) as e:
        return Routed(intent, f"{why}; not answered from the analysis: {e}", _ms(t0),
                      **passage)
    return Routed(intent, why, _ms(t0), answer)


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
    from backend.chat.format_check import apply_profile
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
    trace.total_ms = round(routed.ms + _ms(t0), 3)
    result = RetrievalResult(q, RetrievalParams(policy=cfg.policy, k=max(1, min(200, len(hits))),
                                                persist_trace=True),
                             hits, trace, mode="analysis", language=language(q),
                             warnings=list(a.notes))
    owner = TraceOwner.user(sess.user) if sess.user else TraceOwner.system("cli")
    trace_id = save_trace(chat.rs.store, result, owner)
    retrieval_ms = round(routed.ms + _ms(t0), 3)
    yield Retrieved(sources, trace_id, retrieval_ms)
    yield Delta(a.text)
    text, fmt = apply_profile(a.text, cfg.answer_profile)
    citations = line_citations(text, len(sources))
    for src in sources:
        src["cited"] = src["n"] in citations["cited"]
    notice = " ".join(["Answered from the document analysis (" + routed.intent.action + "), "
                       "not from passage retrieval."] + a.notes)
    yield chat.store_turn(
        sess.uuid, q, cfg, content=text, sources=sources, citations=citations,
        format_check=fmt, provider=PROVIDER, model=a.model, tokens_input=count_tokens(q),
        tokens_output=count_tokens(text), tokens_counted_locally=True, cost_usd=0.0,
        cost_label="local", latency_ms=round(routed.ms + _ms(t0), 3), first_token_ms=None,
        retrieval_ms=retrieval_ms, trace_id=trace_id, fallback=False, notice=notice)


def note_trace(rs, trace_id: str | None, routed: Routed) -> None:
    """Put the `route` stage (retrieval, and why) in front of a stored retrieval trace."""
    if not trace_id:
        return
    from backend.store.models import RetrievalTrace

    with rs.store.session() as s:
        row = s.get(RetrievalTrace, trace_id)
        if row is None or not isinstance(row.trace, dict):
            return
        data = dict(row.trace)
        tr = dict(data.get("trace") or {})
        tr["stages"] = [routed.stage()] + [x for x in tr.get("stages", [])
                                           if x.get("name") != "route"]
        data["trace"] = tr
        row.trace = data
