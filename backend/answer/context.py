"""What the chat's analysis route (route.py) and its handlers (analysis_answers.py) share:
the routed `Answer`, `NoRoute`, the documents in scope and the `Context` of one question with
its document choice. Both import it; it imports neither, so the two are no import cycle."""
from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field

from sqlalchemy import func, select

from backend.security.access import Scope
from backend.analysis.types import DOC_KINDS
from backend.answer.compose import Place
from backend.answer.intents import Intent
from backend.errors import NotFound
from backend.retrieval.types import RetrievalParams, Stage

# the kind of document that usually holds an extractor's items: tried first among the
# documents retrieval did not reach
NATURAL_KIND = {"decisions": "minutes", "meeting_actions": "minutes", "setup_steps": "manual",
                "config_keys": "manual", "api_surface": "manual", "operational_notes": "manual",
                "requirements": "policy"}
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


@dataclass(frozen=True)
class DocInfo:
    id: int
    title: str
    filename: str
    doc_type: str
    versions: int  # indexed versions


class NoRoute(Exception):
    """The analysis cannot answer this question; the message says why (for the trace)."""


def elapsed_ms(t0: float) -> float:
    return round((time.perf_counter() - t0) * 1000, 3)


def is_german(ctx: "Context") -> bool:
    return ctx.lang == "de"


def analysis_stage(ms: float, doc: int, version: int | None, names, **params) -> Stage:
    """The trace stage of an analysis handler: which document and version, what it ran."""
    return Stage("analysis", ms, {"document_id": doc, "version": version,
                                  "what": list(names), **params})


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
    session names none), among those `scope` may read (backend/security/access.py): the route never
    picks, names or counts another document."""
    from backend.security.access import visible_documents
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

    @property
    def dictionary(self):
        """The German–English dictionary (None when absent): topic words across languages
        and verb forms (backend/answer/topic.py)."""
        from backend.retrieval import dictionary

        return dictionary.get(self.rs.settings.dictionary_path)

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
            return doc, payload, Stage("document_choice", elapsed_ms(t0), {
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
