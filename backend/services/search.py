"""Search, smart search and questions for the HTTP API and the MCP tools, on behalf of an
`Actor`: the collections it may read are resolved before retrieval and passed down as the
filter of both indexes.

- `search`: ranked passages with every stage's score, paged by offset/limit.
- `smart_search`: document-centred: the best documents for a query, each with its best
  passages (section, page); questions like "which documents are about X" return the
  document list (inventory mode); filters by document type, file type and collection.
- `ask_stream`: an answer streamed as events, its checked citations and sources at the end
  (the chat service; the session belongs to the actor)."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterator

from backend.security import access
from backend.security.access import Actor, chat_user  # noqa: F401 (search.chat_user: callers)
from backend.retrieval import Hit, RetrievalParams, RetrievalResult, Retriever

MAX_WINDOW = 200  # offset + limit of one search (RetrievalParams.k's ceiling)


class SearchInputError(ValueError):
    """A search request is invalid; `field` names the parameter."""

    def __init__(self, field: str, message: str):
        self.field = field
        super().__init__(message)


def _window(offset: int, limit: int, per: int = 1) -> int:
    if offset < 0:
        raise SearchInputError("offset", "offset must be 0 or more")
    if limit < 1:
        raise SearchInputError("limit", "limit must be 1 or more")
    if (offset + limit) * per > MAX_WINDOW:
        raise SearchInputError("offset", f"offset + limit may reach at most {MAX_WINDOW // per}"
                               " results (ask a narrower question or filter)")
    return (offset + limit) * per


def _retrieve(rs, actor: Actor, query: str, shown: slice | None = None,
              **values) -> RetrievalResult:
    """Retrieval within the actor's scope (computed now, passed down before retrieval);
    `shown`: the hits the response carries (only those get snippets)."""
    return Retriever(rs).retrieve(query, RetrievalParams(**values),
                                  scope=access.scope_of(rs, actor), shown=shown)


@dataclass
class SearchPage:
    """Hits `offset` to `offset + limit`; `more`: the ranking goes on after them (one hit
    beyond the page is retrieved to know)."""

    result: RetrievalResult
    hits: list[Hit]
    offset: int
    limit: int
    more: bool


def search(rs, actor: Actor, query: str, *, offset: int = 0, limit: int = 10,
           **params) -> SearchPage:
    """Ranked passages `offset` to `offset + limit` (retrieval parameters as keywords:
    policy, collections, doc_types, file_types, tags, categories, tag_routing, fusion,
    rerank, expand, min_score, fuzzy)."""
    k = min(MAX_WINDOW, _window(offset, limit) + 1)
    res = _retrieve(rs, actor, query, slice(offset, offset + limit),
                    **{**params, "k": k, "persist_trace": False})
    return SearchPage(res, res.hits[offset:offset + limit], offset, limit,
                      len(res.hits) > offset + limit)


@dataclass
class Passage:
    chunk_id: str
    section_id: int | None
    breadcrumb: str
    page: int | None
    page_end: int | None
    score: float
    text: str


@dataclass
class SmartDocument:
    document_id: int
    title: str
    filename: str
    doc_type: str
    score: float
    rank: int
    matching_passages: int
    passages: list[Passage] = field(default_factory=list)


@dataclass
class SmartResult:
    query: str
    mode: str  # documents | inventory
    language: str
    documents: list[SmartDocument]
    total: int
    offset: int
    limit: int
    warnings: list[str]


def smart_search(rs, actor: Actor, query: str, *, collections: list[str] | None = None,
                 doc_types: list[str] | None = None, file_types: list[str] | None = None,
                 offset: int = 0, limit: int = 10, passages: int = 2,
                 tags: list[str] | None = None,
                 categories: list[str] | None = None) -> SmartResult:
    """Documents ranked for the query (each with up to `passages` best passages)."""
    if not 1 <= passages <= 10:
        raise SearchInputError("passages", "passages must lie between 1 and 10")
    k = _window(offset, limit, passages)
    res = _retrieve(rs, actor, query, policy="document_first", per_document_cap=passages, k=k,
                    candidates=max(50, 5 * k), collections=collections, doc_types=doc_types,
                    file_types=file_types, tags=tags, categories=categories,
                    inventory="auto")
    by_doc: dict[int, list[Hit]] = {}
    for h in res.hits:
        by_doc.setdefault(h.document_id, []).append(h)
    docs = [SmartDocument(d.document_id, d.title, d.filename, d.doc_type, d.score, d.rank,
                          d.chunks,
                          [Passage(h.chunk_id, h.section_id, h.breadcrumb, h.page, h.page_end,
                                   round(float(h.score), 6), h.text)
                           for h in by_doc.get(d.document_id, [])[:passages]])
            for d in res.documents]
    mode = "inventory" if res.mode == "inventory" else "documents"
    return SmartResult(query, mode, res.language, docs[offset:offset + limit], len(docs),
                       offset, limit, list(res.warnings))


# ---- questions -------------------------------------------------------------------------


def ask_stream(rs, actor: Actor, question: str, *, session: str | None = None,
               collections: list[str] | None = None, policy: str = "hybrid",
               context_limit: int = 5, context: str | None = None,
               profile_id: int | None = None, provider_factory=None,
               tags: list[str] | None = None) -> Iterator:
    """Validate the question and open (or continue) the actor's session, then return the
    iterator of chat events (Retrieved, Delta, Fallback, Critiquing, Answered); a generated
    answer is critiqued first when RAGSCOPE_CRITIQUE_AUTO is on (services/auto_critique.py).
    Invalid input raises here, before anything is streamed."""
    from backend.chat.service import ChatService

    chat = ChatService(rs, provider_factory)
    q = chat.validate_question(question)
    scope = access.scope_of(rs, actor)
    scope.collections(collections)  # NotFound outside the scope, before anything streams
    user = chat_user(actor)
    if session:
        info = chat.get_session(session, user=user)
        if info.user != user:
            from backend.errors import NotFound

            raise NotFound(f"chat session {session} does not exist (any more)")
        if collections is not None or policy != "hybrid" or context_limit != 5:
            chat.update_settings(info.uuid, user=user, collections=collections or [],
                                 policy=policy, context_limit=context_limit)
        if context is not None:
            chat.update_settings(info.uuid, user=user, context_mode=context)
        if profile_id is not None:  # an author profile (issue 26)
            chat.update_settings(info.uuid, user=user, profile_id=profile_id)
        if tags is not None:
            chat.update_settings(info.uuid, user=user, tags=tags)
    else:
        info = chat.create_session(user, collections=collections or [], policy=policy,
                                   context_limit=context_limit,
                                   context_mode=context or "regular", profile_id=profile_id,
                                   tags=tags or [])
    from backend.services.auto_critique import with_critique  # RAGSCOPE_CRITIQUE_AUTO

    return with_critique(rs, actor, chat.ask_stream(info.uuid, q, scope=scope, user=user),
                         provider_factory=provider_factory)
