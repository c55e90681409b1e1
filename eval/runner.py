"""Evaluate retrieval configurations on a goldenset.

Per query and configuration: the document ranking (distinct documents in rank order, keyed by
file name or BEIR id as the goldenset says), IR metrics through ranx (hit@k, recall@k, MRR@k,
nDCG@k, MAP, ...), the RAGAS context metrics when the query has reference contexts, and the
LLM-judged metrics when a judge is given. Query embeddings are computed once, in batches, and
shared by every configuration (`Retriever.retrieve(..., query_embedding=...)`).

Bad input is reported, not fatal: relevant documents that are not in the corpus (or not in the
evaluated collection) are dropped from the judgements with a warning, and a query left without
any is skipped with a warning; the run continues on the rest."""
from __future__ import annotations

import time
import warnings as _warnings
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Callable

from sqlalchemy import func, select

from backend.security.access import Scope, scoped_counts
from backend.retrieval import RetrievalParams, RetrievalResult, Retriever, TraceOwner
from backend.store import repo
from backend.store.models import CollectionDocument, Collection, Document
from eval.context_metrics import context_scores
from eval.goldenset import Goldenset, GoldensetError, GoldQuery

DEFAULT_METRICS = ["hit@1", "hit@5", "hit@10", "recall@5", "recall@10", "mrr@10", "ndcg@10",
                   "map"]
DEPTH = 20  # distinct documents kept per ranking (metrics up to @20)
MIN_HITS = 30  # hits fetched per query, so that the ranking reaches DEPTH documents
EMBED_BATCH = 256
NONE_DOC = "__none__"  # ranx needs a non-empty ranking per query
TRACE_LIMIT = 1000  # traces="auto" stores a trace per retrieval up to this many retrievals

Progress = Callable[[int, int, str], None]


def ranx_name(metric: str) -> str:
    """Public metric names are ranx's, except hit@k (ranx: hit_rate@k)."""
    return "hit_rate" + metric[3:] if metric.startswith("hit@") else metric


@dataclass
class QueryResult:
    query_id: str
    question: str
    metrics: dict[str, float]
    ranking: list[tuple[str, float]]  # (doc key, 1/rank), best first
    relevant: dict[str, int]
    trace_id: str | None = None
    latency_ms: float = 0.0


@dataclass
class ConfigResult:
    name: str
    params: RetrievalParams
    metrics: dict[str, float]  # aggregated: mean over the evaluated queries
    per_query: dict[str, QueryResult]
    duration_s: float = 0.0

    @property
    def run(self) -> dict[str, dict[str, float]]:
        """ranx shape: {query_id: {doc key: score}}."""
        return {qid: dict(r.ranking) or {NONE_DOC: 0.0} for qid, r in self.per_query.items()}


@dataclass
class EvalReport:
    goldenset: Goldenset
    configs: dict[str, ConfigResult]
    qrels: dict[str, dict[str, int]]  # as evaluated (unknown documents removed)
    warnings: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    index_meta: dict[str, Any] = field(default_factory=dict)
    metric_names: list[str] = field(default_factory=list)

    def summary(self) -> dict[str, dict[str, float]]:
        """What `--json` prints: {config: {metric: value}}."""
        return {n: dict(c.metrics) for n, c in self.configs.items()}


class DocKeys:
    """Document id -> the key goldensets use (file name, or BEIR id), for the documents in
    scope (active, in the given collections)."""

    def __init__(self, rs, doc_key: str, collections: list[str] | None = None):
        self.doc_key = doc_key
        q = select(Document.id, Document.filename, Document.source_uri, Document.meta).where(
            Document.status == "active")
        with rs.store.session() as s:
            if collections is not None:  # [] (a scope that reads nothing): no document
                for c in collections:
                    repo.get_collection(s, c)  # NotFound names the known collections
                q = q.where(Document.id.in_(
                    select(CollectionDocument.document_id).join(
                        Collection, Collection.id == CollectionDocument.collection_id)
                    .where(Collection.name.in_(collections))))
            rows = s.execute(q).all()
            self.whole_corpus = collections is None or len(rows) == s.scalar(
                select(func.count()).select_from(Document).where(Document.status == "active"))
        self.by_id = {i: self._key(fn, uri, meta) for i, fn, uri, meta in rows}
        self.known = set(self.by_id.values())

    def _key(self, filename: str, source_uri: str, meta: dict | None) -> str:
        if self.doc_key == "beir":  # set by eval.beir.import_beir
            return str((meta or {}).get("beir_id") or source_uri)
        return filename

    def of_hit(self, document_id: int, filename: str, source_uri: str = "") -> str:
        key = self.by_id.get(document_id)
        if key is not None:
            return key
        return f"doc:{document_id}" if self.doc_key == "beir" else filename


def doc_ranking(result: RetrievalResult, keys: DocKeys, depth: int = DEPTH
                ) -> list[tuple[str, float]]:
    """Distinct documents in rank order, scored 1/rank."""
    if result.mode == "inventory" or (result.params.policy == "document_first"
                                      and result.documents):
        items = [(d.document_id, d.filename, "") for d in result.documents]
    else:
        items = [(h.document_id, h.filename, h.source_uri) for h in result.hits]
    out: dict[str, float] = {}
    for doc_id, filename, uri in items:
        key = keys.of_hit(doc_id, filename, uri)
        if key not in out:
            out[key] = 1.0 / (len(out) + 1)
            if len(out) >= depth:
                break
    return list(out.items())


def check_goldenset(gs: Goldenset, keys: DocKeys) -> tuple[list[GoldQuery], dict, list[str]]:
    """(queries to evaluate, their qrels, warnings): unknown documents dropped and reported."""
    warns: list[str] = []
    qrels: dict[str, dict[str, int]] = {}
    where = f" in collection {gs.collection}" if gs.collection else ""
    for qid, rel in gs.qrels().items():
        unknown = sorted(d for d in rel if d not in keys.known)
        for d in unknown:
            warns.append(f"{qid}: relevant document '{d}' is not in the corpus{where}; ignored")
        kept = {d: g for d, g in rel.items() if d in keys.known and g > 0}
        if kept:
            qrels[qid] = kept
        else:
            warns.append(f"{qid}: skipped, none of its relevant documents (grade > 0) is in "
                         f"the corpus{where}")
    queries = [q for q in gs.queries if q.id in qrels]
    if not queries:
        raise GoldensetError(f"goldenset '{gs.name}': no query names a document of the "
                             f"corpus{where} ({len(gs.queries)} queries checked)")
    return queries, qrels, warns


def ir_metrics(qrels: dict[str, dict[str, int]], run: dict[str, dict[str, float]],
               metrics: list[str]) -> tuple[dict[str, float], dict[str, dict[str, float]]]:
    """ranx evaluation: (aggregated, {query_id: {metric: value}}), public metric names."""
    from ranx import Qrels, Run, evaluate

    names = {m: ranx_name(m) for m in metrics}
    with _warnings.catch_warnings():
        _warnings.simplefilter("ignore")
        r = Run({q: (d or {NONE_DOC: 0.0}) for q, d in run.items()})
        agg = evaluate(Qrels(qrels), r, list(names.values()), make_comparable=True)
        if len(names) == 1:
            agg = {next(iter(names.values())): agg}
        per = {m: dict(r.scores[rn]) for m, rn in names.items()}
    return ({m: round(float(agg[rn]), 6) for m, rn in names.items()},
            {qid: {m: round(float(per[m].get(qid, 0.0)), 6) for m in metrics} for qid in run})


def index_metadata(rs, collections: list[str] | None,
                   scope: Scope | None = None) -> dict[str, Any]:
    """How the evaluated indexes were built: stored with every run. `scope_collections`:
    the collections the run could search (who may see the run: eval/store.py); counts are
    those of the scope, and the index build data (whose counts cover every collection) is
    kept for an unrestricted scope only."""
    scope = scope or Scope.everything()
    with rs.store.session() as s:
        metas = {n: repo.get_index_meta(s, n) for n in ("vector", "keyword")} \
            if scope.unrestricted else {}
        counts = scoped_counts(s, scope)
        searched = collections if collections is not None else \
            [c.name for c, _ in repo.list_collections(s)]
    out: dict[str, Any] = {"collections": collections, "counts": counts,
                           "scope_collections": sorted(searched)}
    for name, m in metas.items():
        if m is not None:
            out[name] = {"backend": m.backend, "params": m.params, "chunks": m.chunk_count,
                         "built_at": m.built_at.isoformat() if m.built_at else None}
    return out


def evaluate(rs, gs: Goldenset, configs: dict[str, RetrievalParams], *, scope: Scope,
             metrics: list[str] | None = None, collections: list[str] | None = None,
             traces: bool | None = False, contexts: bool = True, judge=None,
             owner: TraceOwner | None = None,
             on_progress: Progress | None = None) -> EvalReport:
    """Run every configuration over the goldenset within `scope` (who runs it; ACL before
    retrieval: the readable collections are the corpus). `collections` (default: the
    goldenset's) restricts both the retrieval and the documents judgements may name; one
    outside the scope is an unknown collection. `traces`: store a retrieval trace per
    query (for the query-debug page); None = only up to TRACE_LIMIT retrievals. `owner`:
    whom the traces belong to (default: system "eval", admins only)."""
    metrics = list(metrics or DEFAULT_METRICS)
    if not configs:
        raise GoldensetError("no configuration to evaluate")
    collections = scope.collections(collections or ([gs.collection] if gs.collection else None))
    keys = DocKeys(rs, gs.doc_key, collections)
    queries, qrels, warns = check_goldenset(gs, keys)
    report = EvalReport(gs, {}, qrels, warns, metric_names=list(metrics),
                        index_meta=index_metadata(rs, collections, scope))
    has_refs = contexts and any(q.reference_contexts for q in queries)
    if traces is None:
        traces = len(queries) * len(configs) <= TRACE_LIMIT
        if not traces:
            report.notes.append(f"retrieval traces not stored ({len(queries) * len(configs)} "
                                f"retrievals > {TRACE_LIMIT}); ask for them explicitly")
    if judge is None:
        report.notes.append("LLM-judged metrics (faithfulness, answer relevancy) skipped: "
                            "no LLM provider configured")
    total = len(queries) * (len(configs) + 1)
    done = 0

    def tick(label: str) -> None:
        nonlocal done
        done += 1
        if on_progress:
            on_progress(done, total, label)

    embs = []
    for i in range(0, len(queries), EMBED_BATCH):
        part = queries[i:i + EMBED_BATCH]
        embs.extend(rs.embedder.encode_queries([q.question for q in part]))
        for _ in part:
            tick("embedding queries")
    retriever = Retriever(rs)
    for name, params in configs.items():
        t0 = time.perf_counter()
        upd: dict[str, Any] = {"k": max(params.k, MIN_HITS), "persist_trace": traces}
        if collections and not params.collections and not keys.whole_corpus:
            upd["collections"] = collections  # (a filter costs time: only when it filters)
        p = params.model_copy(update=upd)
        per: dict[str, QueryResult] = {}
        extra: dict[str, dict[str, float]] = {}
        degraded: Counter[str] = Counter()
        for q, emb in zip(queries, embs):
            res = retriever.retrieve(q.question, p, query_embedding=emb, scope=scope,
                                     owner=owner or TraceOwner.system("eval"))
            degraded.update(set(res.warnings))
            per[q.id] = QueryResult(q.id, q.question, {}, doc_ranking(res, keys), qrels[q.id],
                                    res.trace.id if traces else None, res.trace.total_ms)
            ctx = [h.context for h in res.hits[:params.k]]
            scores: dict[str, float] = {}
            if has_refs and q.reference_contexts:
                scores.update(context_scores(ctx, q.reference_contexts) or {})
            if judge is not None:
                scores.update(judge.score(q, ctx))
            extra[q.id] = scores
            tick(name)
        agg, per_q = ir_metrics(qrels, {qid: dict(r.ranking) for qid, r in per.items()},
                                metrics)
        for qid, r in per.items():
            r.metrics = {**per_q[qid], **extra[qid]}
        for m in sorted({m for e in extra.values() for m in e}):
            vals = [e[m] for e in extra.values() if m in e]
            agg[m] = round(sum(vals) / len(vals), 6)
        report.configs[name] = ConfigResult(name, params, agg, per,
                                            round(time.perf_counter() - t0, 3))
        report.warnings += [f"{name}: {n} of {len(queries)} retrievals warned: {msg}"
                            for msg, n in degraded.most_common(5)]
    return report
