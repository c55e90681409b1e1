"""The retrieval pipeline. See backend/retrieval/__init__.py for the overview."""
from __future__ import annotations

import time
import uuid
from concurrent.futures import ThreadPoolExecutor

from backend.security.access import NO_ACCESS, Scope
from backend.ingest.dedup import base_source
from backend.index.base import IndexFilter, IndexHit
from backend.retrieval import (anchors, dictionary, domain_query, filter_reads, fusion, lookup,
                               policies, tag_routing)
from backend.retrieval.query import ParsedQuery, parse_query
from backend.retrieval.rerank import DEFAULT_RERANKER, Reranker
from backend.retrieval.types import (
    Candidate,
    Hit,
    RetrievalParams,
    RetrievalResult,
    Stage,
    Trace,
    TraceOwner,
)
from backend.store import repo

# Default weight of the vector retriever by embedding model and query language, chosen by
# measurement on the sample goldenset (docs/retrieval.md) and the answer benchmark
# (docs/chat.md): MiniLM is an English model, weak on German text; multilingual-e5-small
# understands both, but its cosines lie close together, so it needs most of the weight.
# A model not listed gets the MiniLM row.
VECTOR_WEIGHT = {
    "all-MiniLM-L6-v2": {"en": 0.7, "de": 0.3, "": 0.5},
    "multilingual-e5-small": {"en": 0.9, "de": 0.9, "": 0.9},
}
TRACE_CANDIDATES = 50  # candidates kept per stage in the trace

TRANSLATION_WEIGHT = 0.625  # default of RAGSCOPE_RETRIEVAL_TRANSLATION_WEIGHT: added words' keyword score
SHARE_SAMPLE = 1000  # chunks a dictionary word's share is taken of (common words are left out)
_pool = ThreadPoolExecutor(max_workers=4, thread_name_prefix="retrieve-keyword")


def _ms(t0: float) -> float:
    return round((time.perf_counter() - t0) * 1000, 3)


def _cands(ranking: list[tuple[str, float]], n: int = TRACE_CANDIDATES) -> list[Candidate]:
    return [Candidate(i, round(float(s), 6), r) for r, (i, s) in enumerate(ranking[:n], 1)]


class Retriever:
    def __init__(self, rs, reranker: Reranker | None = None):
        self.rs = rs
        self.reranker = reranker or DEFAULT_RERANKER

    # ---- public -------------------------------------------------------------------------

    def retrieve(self, query: str, params: RetrievalParams | None = None, *, scope: Scope,
                 owner: TraceOwner | None = None, query_embedding=None,
                 shown: slice | None = None) -> RetrievalResult:
        """`scope`: what the caller may read (backend/security/access.py; `Scope.everything()` for
        the CLI operator, the evaluation gate and benches). It becomes the collection filter
        of both index searches before anything is retrieved; a requested collection outside
        it is reported as unknown. `owner`: who asks, stored with the trace when
        `params.persist_trace` (a trace without an owner is visible to admins only).
        `shown`: the hits the caller shows (a page); only those get keyword snippets."""
        p = params or RetrievalParams()
        t_all = time.perf_counter()
        trace = Trace(id=str(uuid.uuid4()), query=query)
        t0 = time.perf_counter()
        rules = domain_query.apply(query)  # repairs and synonyms (config/domain/*.yaml)
        t_rules = _ms(t0)
        t0 = time.perf_counter()
        q = parse_query(rules.text, inventory=p.inventory == "auto")
        q.raw, q.expansions = query, rules.added
        trace.stages.append(Stage("query", _ms(t0), {
            "normalised": q.text, "language": q.language, "truncated": q.truncated,
            "phrases": q.phrases, "exact_tokens": q.exact_tokens, "inventory": q.inventory,
            "inventory_topic": q.inventory_topic, "inventory_types": q.inventory_types,
            "inventory_language": q.inventory_language}))
        result = RetrievalResult(query=query, params=p, hits=[], trace=trace,
                                 language=q.language)
        if q.truncated:
            result.warnings.append(f"query cut to {len(q.text)} characters")
        flt = self._filter(p, scope, trace)
        trace.stages.append(Stage("domain_rules", t_rules, rules.stage_params()))
        if not q.text or (flt.document_ids is not None and not flt.document_ids):
            result.warnings.append("empty query" if not q.text else NO_ACCESS
                                   if scope.reads_nothing else "no document matches the filters")
            if q.inventory:
                result.mode = "inventory"  # a document list, empty
            return self._finish(result, t_all, owner)
        if q.inventory:
            policies.inventory(self, q, p, flt, result, scope)
            return self._finish(result, t_all, owner)
        if p.translate:
            self._translate(q, flt, trace)
        fused, stage_scores, highlights = self._candidates(q, p, flt, trace, result, query_embedding)
        if not fused:
            return self._finish(result, t_all, owner)
        t0 = time.perf_counter()
        infos = lookup.current_chunk_infos(self.rs.store.engine, [i for i, _ in fused])
        t1 = time.perf_counter()
        routed = tag_routing.route_in(self.rs.store, q.text, scope, flt.document_ids) \
            if p.tag_routing else ([], set())
        route_ms = _ms(t1)
        fused = [(i, sc) for i, sc in fused if i in infos and infos[i].active]
        trace.stages.append(Stage("lookup", round((t1 - t0) * 1000, 3), {"found": len(infos)}))
        hits = self._hits(fused, stage_scores, highlights, infos)
        if routed[0]:
            self._route_tags(p, hits, routed, route_ms, trace)
        hits = self._boost(q, p, hits, trace)
        hits = anchors.boost(self.rs, query, flt, hits, p.anchor_boost, trace, policy=p.policy)
        hits = policies.apply(self, p, hits, result)
        if p.rerank:
            hits = self._rerank(q, hits, trace)
        if p.min_score is not None:
            hits = [h for h in hits if h.score >= p.min_score]
        if p.prefer_uploads:
            hits = policies.prefer_uploads(hits)
        hits = policies.group(p, hits)[: p.k]
        _fill_highlights(hits[shown or slice(None)], highlights)
        for r, h in enumerate(hits, 1):
            h.rank = r
        policies.decorate(self, p, hits, trace)
        result.hits = hits
        return self._finish(result, t_all, owner)

    # ---- stages -------------------------------------------------------------------------

    def _filter(self, p: RetrievalParams, scope: Scope, trace: Trace) -> IndexFilter:
        """ACL before retrieval: the scope's readable collections (intersected with the
        requested ones) are the collection filter; an empty list matches nothing. Collections
        become a membership filter the indexes evaluate themselves (their chunks carry the
        tokens: docs/retrieval.md, "Filters"), so its cost does not grow with the collection;
        document types, file types and document ids are resolved to document ids in the store.
        An index built before memberships were stored (schema version 1, until `reindex`) gets
        the collections as document ids too."""
        t0 = time.perf_counter()
        ids = None
        members: dict[str, list[int]] | None = None
        empty = False
        collections = scope.collections(p.collections)  # NotFound outside the scope
        doc_types = list(p.doc_types or [])
        if p.categories:  # the registry's categories are their document types
            doc_types += [t for t in tag_routing.category_types(self.rs.store, p.categories)
                          if t not in doc_types]
        doc_ids = p.document_ids
        if p.tags:  # store rows, not index fields: current without a reindex
            with self.rs.store.session() as s:
                tagged = tag_routing.tagged_documents(s, p.tags)
            doc_ids = sorted(tagged if doc_ids is None else tagged & set(doc_ids))
        if collections is not None or doc_types or p.file_types or doc_ids is not None:
            # ids and "has documents" of the collections, and the indexes' shape (cached)
            found, indexed = filter_reads.collections(self.rs.store, collections or [])
            if scope.unrestricted:  # unknown: NotFound naming the known ones
                for n in collections or []:
                    if n not in found:
                        with self.rs.store.session() as s:
                            repo.get_collection(s, n)
            # readable names whose collection does not exist (yet) hold nothing
            coll_ids = [found[n][0] for n in collections or [] if n in found]
            if not scope.unrestricted:
                empty = collections == [] or not coll_ids
            by_index = bool(coll_ids) and indexed
            if coll_ids and by_index:
                members = {"collection": coll_ids}
                empty = empty or not any(found[n][1] for n in collections or [] if n in found)
            if not empty and (doc_types or p.file_types or doc_ids is not None
                              or (coll_ids and not by_index)):
                with self.rs.store.session() as s:
                    ids = repo.document_ids(s, repo.DocumentFilter(
                        collections=None if by_index else (collections or None),
                        doc_types=doc_types or None, file_types=p.file_types or None,
                        document_ids=doc_ids))
                empty = not ids
        trace.stages.append(Stage("filter", _ms(t0), {
            "collections": p.collections, "doc_types": p.doc_types, "file_types": p.file_types,
            "tags": p.tags, "categories": p.categories,
            "document_ids": p.document_ids, "scope": None if scope.unrestricted else "restricted",
            "resolved_documents": None if ids is None else len(ids),
            "memberships": members, "empty": empty}))
        return IndexFilter(document_ids=[] if empty else ids, memberships=members)

    def _route_tags(self, p: RetrievalParams, hits: list[Hit], routed, route_ms: float,
                    trace: Trace) -> None:
        """Stage `tags` (backend/retrieval/tag_routing.py): `routed` tags and documents."""
        names, routed = routed
        t0 = time.perf_counter()
        n = tag_routing.boost(hits, routed, p.tag_boost)
        ms, params = tag_routing.stage_params(names, routed, n, p.tag_boost, t0)
        trace.stages.append(Stage("tags", round(route_ms + ms, 3), params, _cands(
            [(h.chunk_id, h.score) for h in hits])))

    def _candidates(self, q: ParsedQuery, p: RetrievalParams, flt: IndexFilter, trace: Trace,
                    result: RetrievalResult, query_embedding=None):
        use_vec = p.policy != "lexical_only"
        use_kw = p.policy != "semantic_only"
        n = p.candidates
        # The keyword search runs in a worker thread while this thread embeds the query and
        # searches the vectors: both at once, with a single thread handoff.
        kw_future = (_pool.submit(self._keyword_all, q, n, flt, p.fuzzy, p.k)
                     if use_kw and use_vec else None)
        outcomes = {}
        if use_kw and not use_vec:
            outcomes["keyword"] = self._keyword_all(q, n, flt, p.fuzzy, p.k)
        if use_vec:
            outcomes["vector"] = self._vector(q.text, n, flt, query_embedding)
        if kw_future is not None:
            outcomes["keyword"] = kw_future.result()
        rankings: dict[str, list[tuple[str, float]]] = {}
        highlights_by_id: dict[str, list[str]] = {}
        stage_scores: dict[str, dict[str, tuple[float, int]]] = {}
        for name, outcome in outcomes.items():
            stages, ranking, err, highlights = outcome
            highlights_by_id.update(highlights)
            trace.stages.extend(stages)
            if err:
                result.warnings.append(f"{name} search failed ({err}); "
                                       f"results come from the other retriever only")
                continue
            rankings[name] = ranking
            stage_scores[name] = {i: (s, r) for r, (i, s) in enumerate(ranking, 1)}
        t0 = time.perf_counter()
        weights = self._weights(q, p)
        if len(rankings) == 1:
            only = next(iter(rankings.values()))
            fused = fusion.ranked(fusion.max_norm(only)) if p.fusion == "weighted" else \
                fusion.ranked(fusion.rrf(rankings, p.rrf_k))
            method = "single"
        elif p.fusion == "rrf":
            fused = fusion.ranked(fusion.rrf(rankings, p.rrf_k, weights))
            method = "rrf"
        else:
            fused = fusion.ranked(fusion.weighted(rankings, weights, p.normalisation))
            method = "weighted"
        trace.stages.append(Stage("fusion", _ms(t0), {
            "method": method, "rrf_k": p.rrf_k if method == "rrf" else None,
            "weights": weights, "normalisation": p.normalisation if method == "weighted" else None,
            "retrievers": sorted(rankings)}, _cands(fused)))
        return fused, stage_scores, highlights_by_id

    def _translate(self, q: ParsedQuery, flt: IndexFilter, trace: Trace) -> None:
        """The question's words in the other language for the keyword query (the vector
        query and the detected language stay those of the question): German–English
        dictionary words that the searched documents contain (backend/retrieval/dictionary.py).
        Shown in the trace as stage `translate`."""
        t0 = time.perf_counter()
        settings = getattr(self.rs, "settings", None)  # a read-only view may have none
        d = dictionary.get(settings.dictionary_path) if settings is not None else None
        if d is None or q.language not in ("de", "en"):
            return
        added = dictionary.query_words(d, q.text, q.language, self._share(flt))
        q.translations = [t for ts in added.values() for t in ts]
        trace.stages.append(Stage("translate", _ms(t0), {
            "dictionary": d.path, "into": "en" if q.language == "de" else "de",
            "words": added, "added": q.translations}))

    def _share(self, flt: IndexFilter):
        """A word's share of the indexed chunks (of at most SHARE_SAMPLE), counted only as far
        as needed to tell whether it is above dictionary.MAX_COMMON_SHARE."""
        idx = self.rs.keyword_index
        try:  # tantivy counts, reading no hit (7 ms per question less); others search
            n = min(int(idx.count()), SHARE_SAMPLE)
            count = idx.match_counter(flt) if n and hasattr(idx, "match_counter") else None
        except Exception:  # noqa: BLE001 - an index that cannot say: no words added
            n, count = 0, None
        k = int(n * dictionary.MAX_COMMON_SHARE) + 1

        def share(word: str) -> float:
            if not n:
                return 0.0
            try:
                found = count(word) if count else len(idx.search(word, k, flt,
                                                                 highlight_limit=0))
                return min(found, k) / n
            except Exception:  # noqa: BLE001 - leave the word out
                return 0.0
        return share

    def _weights(self, q: ParsedQuery, p: RetrievalParams) -> dict[str, float]:
        table = VECTOR_WEIGHT.get(str(self.rs.embedder.model_name).rsplit("/", 1)[-1],
                                  VECTOR_WEIGHT["all-MiniLM-L6-v2"])
        w = p.vector_weight if p.vector_weight is not None else table.get(q.language, 0.5)
        return {"vector": w, "keyword": 1.0 - w}

    def _vector(self, text: str, n: int, flt: IndexFilter, emb=None):
        stages = []
        try:
            t0 = time.perf_counter()
            if emb is None:
                emb = self.rs.embedder.encode_query(text)
            stages.append(Stage("query_embedding", _ms(t0), {
                "model": self.rs.embedder.model_name, "backend": self.rs.embedder.backend}))
            t0 = time.perf_counter()
            hits: list[IndexHit] = self.rs.vector_index.search(emb, n, flt)
            ranking = [(h.chunk_id, h.score) for h in hits]
            stages.append(Stage("vector_search", _ms(t0), {"index": self.rs.vector_index.name,
                                                          "candidates": n}, _cands(ranking)))
            return stages, ranking, None, {}
        except Exception as e:  # noqa: BLE001 - degrade, record in the trace
            stages.append(Stage("vector_search", 0.0, {"candidates": n}, error=str(e)))
            return stages, [], f"{type(e).__name__}: {e}", {}

    def _keyword_all(self, q: ParsedQuery, n: int, flt: IndexFilter, fuzzy: bool, limit: int):
        """The keyword search of the question; with dictionary words or domain synonyms
        (config/domain/vocabulary.yaml), a second search of those alone, whose scores count
        RAGSCOPE_RETRIEVAL_TRANSLATION_WEIGHT times: a chunk in the question's
        own language that matches its words stays ahead of one matching only translations."""
        out = self._keyword(q.text, n, flt, fuzzy, limit)
        extra = q.translations + [w for w in q.expansions if w not in q.translations]
        if not extra or out[2]:
            return out
        # the question's own hits keep their snippets (below): none computed for them here
        more = self._keyword(" ".join(extra), n, flt, fuzzy, limit, set(out[3]))
        if more[2]:
            return out
        scores: dict[str, float] = dict(out[1])
        weight = getattr(getattr(self.rs, "settings", None), "retrieval_translation_weight",
                         TRANSLATION_WEIGHT)
        for i, sc in more[1]:
            scores[i] = scores.get(i, 0.0) + weight * sc
        ranking = sorted(scores.items(), key=lambda x: (-x[1], x[0]))[:n]
        more[0][0].name = "keyword_search_translated"
        return out[0] + more[0], ranking, None, {**more[3], **out[3]}

    def _keyword(self, text: str, n: int, flt: IndexFilter, fuzzy: bool, limit: int,
                 skip: frozenset[str] | set[str] = frozenset()):
        t0 = time.perf_counter()
        idx = self.rs.keyword_index
        # snippets cost more than the search: deferred, computed for the hits returned only
        defer = {"defer_highlights": True} if getattr(idx, "defers_highlights", False) else {}
        try:
            hits = idx.search(text, n, flt, fuzzy=fuzzy, highlight_limit=limit,
                              highlight_skip=skip, **defer)
            ranking = [(h.chunk_id, h.score) for h in hits]
            st = Stage("keyword_search", _ms(t0), {"index": self.rs.keyword_index.name,
                                                   "candidates": n, "fuzzy": fuzzy},
                       _cands(ranking))
            return [st], ranking, None, {h.chunk_id: h.pending or h.highlights for h in hits}
        except Exception as e:  # noqa: BLE001 - degrade, record in the trace
            st = Stage("keyword_search", _ms(t0), {"candidates": n}, error=f"{type(e).__name__}: {e}")
            return [st], [], f"{type(e).__name__}: {e}", {}

    def _hits(self, fused, stage_scores, hl, infos) -> list[Hit]:
        vec, kw = stage_scores.get("vector", {}), stage_scores.get("keyword", {})
        hits = []
        for r, (cid, score) in enumerate(fused, 1):
            i = infos[cid]
            v, k = vec.get(cid), kw.get(cid)
            hits.append(Hit(
                chunk_id=cid, document_id=i.document_id, version_id=i.version_id, text=i.text,
                score=score, fused_score=score, fused_rank=r,
                vector_score=v[0] if v else None, vector_rank=v[1] if v else None,
                keyword_score=k[0] if k else None, keyword_rank=k[1] if k else None,
                document_title=i.title, filename=i.filename, version_number=i.version_number,
                doc_type=i.doc_type, file_type=i.file_type, section_id=i.section_id,
                page=i.page, page_end=i.page_end, start=i.start, end=i.end, ordinal=i.ordinal,
                original_path=i.original_path, source_uri=base_source(i.source_uri),
                highlights=[] if callable(hl.get(cid)) else list(hl.get(cid, []))))
        return hits

    def _boost(self, q: ParsedQuery, p: RetrievalParams, hits: list[Hit], trace: Trace):
        t0 = time.perf_counter()
        if not hits or p.exact_boost <= 0:
            return hits
        top = max(h.score for h in hits) or 1.0
        qlow = q.text.casefold()
        phrases = [x.casefold() for x in q.phrases]
        tokens = [x.casefold() for x in q.exact_tokens]
        boosted = 0
        for h in hits:
            b = 0
            if phrases or tokens:  # casefolding ~80 passages costs more than the rest here
                text = h.text.casefold()
                b = sum(1 for ph in phrases if ph in text) + sum(1 for t in tokens if t in text)
            names = {h.document_title.casefold(), h.filename.casefold(),
                     h.filename.rsplit(".", 1)[0].casefold()}
            if any(len(n) >= 4 and n in qlow for n in names):
                b += 1
            if b:
                h.boost = p.exact_boost * top * min(b, 3)
                h.score += h.boost
                boosted += 1
        hits.sort(key=lambda h: (-h.score, h.chunk_id))
        trace.stages.append(Stage("boost", _ms(t0), {
            "exact_boost": p.exact_boost, "phrases": q.phrases, "exact_tokens": q.exact_tokens,
            "boosted": boosted}, [Candidate(h.chunk_id, round(h.score, 6), r)
                                  for r, h in enumerate(hits[:TRACE_CANDIDATES], 1)]))
        return hits

    def _rerank(self, q: ParsedQuery, hits: list[Hit], trace: Trace) -> list[Hit]:
        t0 = time.perf_counter()
        scores = self.reranker.score(q.text, hits)
        for h, s in zip(hits, scores):
            h.rerank_score = s
            h.score = s
        hits.sort(key=lambda h: (-h.score, h.chunk_id))
        trace.stages.append(Stage("rerank", _ms(t0), {"reranker": self.reranker.name},
                                  [Candidate(h.chunk_id, round(h.score, 6), r)
                                   for r, h in enumerate(hits[:TRACE_CANDIDATES], 1)]))
        return hits

    def _finish(self, result: RetrievalResult, t_all: float,
                owner: TraceOwner | None) -> RetrievalResult:
        result.trace.total_ms = _ms(t_all)
        if result.params.persist_trace:
            from backend.retrieval.traces import save_trace

            save_trace(self.rs.store, result, owner)
        return result


def _fill_highlights(hits: list[Hit], found: dict) -> None:
    """The deferred keyword snippets (IndexHit.pending) of the hits returned."""
    for h in hits:
        pending = found.get(h.chunk_id)
        if callable(pending):
            h.highlights = pending()


def retrieve(query: str, params: RetrievalParams | None = None, *, rs, scope: Scope,
             owner: TraceOwner | None = None) -> RetrievalResult:
    """Functional form: `retrieve(query, params, rs=Ragscope(...), scope=...)`."""
    return Retriever(rs).retrieve(query, params, scope=scope, owner=owner)
