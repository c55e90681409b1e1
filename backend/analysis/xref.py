"""Cross-reference: sections of other documents on the same topic as a query or as a given
section, ranked by the hybrid retrieval (backend.retrieval.Retriever), one entry per section,
each with the reason it was found (shared terms and the retrieval stages that ranked it)."""
from __future__ import annotations

import re
from dataclasses import dataclass, field

from backend.security.access import Scope
from backend.analysis.summaries import STOPWORDS

_TERM = re.compile(r"[A-Za-zÄÖÜäöüß0-9][\w.-]{2,}")


@dataclass
class XrefHit:
    rank: int
    document_id: int
    title: str
    filename: str
    section_id: int | None
    section: str
    page: int | None
    score: float
    shared_terms: list[str]
    reason: str
    snippet: str
    chunk_ids: list[str] = field(default_factory=list)


@dataclass
class CrossReference:
    query: str
    origin: str  # "query" or "<document> › <section>"
    hits: list[XrefHit]
    trace_id: str | None


def _terms(text: str) -> set[str]:
    return {w.lower().strip(".-") for w in _TERM.findall(text) if w.lower() not in STOPWORDS}


def cross_reference(rs, query: str | None = None, *, doc: int | str | None = None,
                    section: int | str | None = None, version: int | None = None, k: int = 10,
                    collections: list[str] | None = None, scope: Scope) -> CrossReference:
    """Sections on the topic of `query`, or of `section` of document `doc` (then that
    document itself is left out). Only documents `scope` may read are searched (the
    retrieval's ACL filter, backend/security/access.py): no hit, title or count of another one; `doc`
    outside it and a collection outside it are not found."""
    from backend.analysis.service import find_section, load_source, resolve
    from backend.errors import AnalysisError
    from backend.retrieval import RetrievalParams, Retriever

    exclude: int | None = None
    origin = "query"
    if doc is not None:
        t = resolve(rs, doc, version, scope=scope)
        src = load_source(rs, t)
        exclude = t.document_id
        if section is not None:
            sec = find_section(src, section)
            body = src.text[sec.start:sec.end]
            origin = f"{t.title} › {sec.label}"
        else:
            body = src.text[:20000]
            origin = t.title
        if not query:
            terms = key_terms_of(body)
            query = " ".join(([sec.label] if section is not None else [t.title]) + terms[:8])
    if not query or not query.strip():
        raise AnalysisError("cross-reference needs a query or a document section")
    params = RetrievalParams(k=min(200, max(k * 4, 20)), collections=collections or None,
                             inventory="off", persist_trace=False)
    res = Retriever(rs).retrieve(query, params, scope=scope)
    qterms = _terms(query)
    grouped: dict[tuple[int, int | None], XrefHit] = {}
    for h in res.hits:
        if exclude is not None and h.document_id == exclude:
            continue
        key = (h.document_id, h.section_id)
        hit = grouped.get(key)
        if hit is None:
            shared = sorted(qterms & _terms(h.text))[:8]
            stages = []
            if h.keyword_rank is not None:
                stages.append(f"BM25 rank {h.keyword_rank}")
            if h.vector_rank is not None:
                stages.append(f"vector rank {h.vector_rank}")
            reason = (("shares " + ", ".join(shared)) if shared else "similar wording (vector)")
            reason += f"; {', '.join(stages)}" if stages else ""
            grouped[key] = XrefHit(0, h.document_id, h.document_title, h.filename, h.section_id,
                                   h.breadcrumb or h.section_title or "(document)", h.page,
                                   round(h.score, 4), shared, reason,
                                   " ".join(h.text.split())[:240], [h.chunk_id])
        else:
            hit.chunk_ids.append(h.chunk_id)
            hit.score = round(max(hit.score, h.score), 4)
    hits = sorted(grouped.values(), key=lambda x: -x.score)[:k]
    for n, x in enumerate(hits, 1):
        x.rank = n
    return CrossReference(query, origin, hits, res.trace.id)


def key_terms_of(text: str, n: int = 12) -> list[str]:
    """Frequent content words of a section: no stopwords, month or day names, numbers or
    titles of address."""
    from collections import Counter

    from backend.analysis.dates import MONTH_WORDS

    skip = STOPWORDS | MONTH_WORDS | {"herr", "frau", "jahr", "jahre", "year", "years", "uhr"}
    counts = Counter(w for w in (x.lower().strip(".-") for x in _TERM.findall(text))
                     if w not in skip and len(w) > 3 and not any(c.isdigit() for c in w))
    return [w for w, _ in counts.most_common(n)]
