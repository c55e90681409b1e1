"""Goldensets and evaluation runs in the metadata store (tables of migrations 0005, 0008).

Goldensets are stored by name with their questions as JSON; the evaluation page edits them and
`python -m eval run FILE` registers a file's goldenset under its name. A run is one
configuration evaluated on one goldenset: configuration, index metadata, aggregated metrics and
one result row per query; the configurations of one invocation share a `batch` id. Answer runs
(`python -m eval answers`, kind "answers") use the same tables: the provider is the
configuration, each result keeps the answer in `details`.

Who sees what (ACL, backend/security/access.py): a goldenset tied to a collection is visible to those
who may read that collection (one without a collection: to everyone); a run is visible to
those who may read every collection it searched (`index_meta["scope_collections"]`; runs
from before knowledge bases: the collections they name, or, for the whole corpus, every
collection there is now). Hidden ones are reported like missing ones."""
from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

from sqlalchemy import delete, select

from backend.security.access import Scope
from backend.store.eval_models import EvalGoldenset, EvalResult, EvalRun
from backend.store.models import Collection
from backend.store.models import utcnow
from eval.goldenset import (
    Goldenset,
    GoldensetError,
    GoldQuery,
    load_goldenset,
    make_goldenset,
    parse_query,
)


class RunNotFound(GoldensetError):
    pass


# ---- goldensets ---------------------------------------------------------------------------


@dataclass
class GoldensetInfo:
    name: str
    description: str
    doc_key: str
    collection: str | None
    source: str
    n_queries: int
    updated_at: datetime
    edited: bool


def _to_goldenset(row: EvalGoldenset) -> Goldenset:
    queries = [parse_query(q, f"goldenset {row.name} query {i}")
               for i, q in enumerate(row.queries or [], 1)]
    return Goldenset(row.name, queries, row.description, row.doc_key, row.collection)


def save_goldenset(rs, gs: Goldenset, *, source: str = "", edited: bool = False) -> int:
    """Insert or replace the goldenset of this name."""
    with rs.store.session() as s:
        row = s.scalar(select(EvalGoldenset).where(EvalGoldenset.name == gs.name))
        if row is None:
            row = EvalGoldenset(name=gs.name)
            s.add(row)
        row.description = gs.description
        row.doc_key = gs.doc_key
        row.collection = gs.collection
        row.queries = [q.to_dict() for q in gs.queries]
        row.sha256 = gs.sha256()
        if source:
            row.source = source
        row.edited_at = utcnow() if edited else None
        s.flush()
        return row.id


def _goldenset_visible(scope: Scope | None, collection: str | None) -> bool:
    return scope is None or not collection or scope.can_read(collection)


def get_goldenset(rs, name: str, *, scope: Scope | None = None) -> Goldenset:
    """The stored goldenset; GoldensetError when there is none of that name or `scope`
    may not see it (None: no check, for the write paths that got the name from a
    listing)."""
    with rs.store.session() as s:
        row = s.scalar(select(EvalGoldenset).where(EvalGoldenset.name == name))
        if row is None or not _goldenset_visible(scope, row.collection):
            known = [n for n, c in s.execute(select(EvalGoldenset.name, EvalGoldenset.collection)
                                             .order_by(EvalGoldenset.name))
                     if _goldenset_visible(scope, c)]
            raise GoldensetError(f"no goldenset named '{name}' (known: "
                                 f"{', '.join(known) or 'none'}); give a file path or "
                                 f"import one with `python -m eval import-beir`")
        return _to_goldenset(row)


def list_goldensets(rs, *, scope: Scope) -> list[GoldensetInfo]:
    with rs.store.session() as s:
        rows = s.scalars(select(EvalGoldenset).order_by(EvalGoldenset.name)).all()
        return [GoldensetInfo(r.name, r.description, r.doc_key, r.collection, r.source,
                              len(r.queries or []), r.updated_at, r.edited_at is not None)
                for r in rows if _goldenset_visible(scope, r.collection)]


def delete_goldenset(rs, name: str) -> None:
    with rs.store.session() as s:
        s.execute(delete(EvalGoldenset).where(EvalGoldenset.name == name))


def register_file(rs, path: str | Path) -> tuple[Goldenset, list[str]]:
    """Load a goldenset file and store it under its name, unless the stored copy was edited
    on the evaluation page since: then the file's version is evaluated and the edited copy
    kept (with a warning)."""
    gs = load_goldenset(path)
    notes = []
    with rs.store.session() as s:
        row = s.scalar(select(EvalGoldenset).where(EvalGoldenset.name == gs.name))
        keep = row is not None and row.edited_at is not None and row.sha256 != gs.sha256()
    if keep:
        notes.append(f"goldenset '{gs.name}' was edited on the evaluation page; the file's "
                     f"version is evaluated and the edited copy is kept")
    else:
        save_goldenset(rs, gs, source=str(Path(path).resolve()))
    return gs, notes


def put_query(rs, name: str, query: dict | GoldQuery, *, old_id: str | None = None) -> GoldQuery:
    """Add a question, or replace the one with id `old_id` (the editor's save)."""
    gs = get_goldenset(rs, name)
    q = query if isinstance(query, GoldQuery) else parse_query(query, f"question {query.get('id')}")
    others = [x for x in gs.queries if x.id != (old_id or q.id)]
    if any(x.id == q.id for x in others):
        raise GoldensetError(f"goldenset '{name}' already has a question with id '{q.id}'")
    pos = next((i for i, x in enumerate(gs.queries) if x.id == (old_id or q.id)), len(others))
    others.insert(pos, q)
    save_goldenset(rs, make_goldenset(gs.name, others, description=gs.description,
                                      doc_key=gs.doc_key, collection=gs.collection), edited=True)
    return q


def delete_query(rs, name: str, query_id: str) -> None:
    gs = get_goldenset(rs, name)
    rest = [q for q in gs.queries if q.id != query_id]
    save_goldenset(rs, make_goldenset(gs.name, rest, description=gs.description,
                                      doc_key=gs.doc_key, collection=gs.collection), edited=True)


def next_query_id(gs: Goldenset) -> str:
    nums = [int(q.id[1:]) for q in gs.queries if q.id[:1] == "q" and q.id[1:].isdigit()]
    widths = [len(q.id) - 1 for q in gs.queries if q.id[:1] == "q" and q.id[1:].isdigit()]
    width = max(widths) if widths else 2
    return f"q{(max(nums) + 1 if nums else 1):0{width}d}"


# ---- runs ---------------------------------------------------------------------------------


@dataclass
class RunInfo:
    id: int
    batch: str
    goldenset_name: str
    goldenset_sha: str
    config_name: str
    params: dict
    index_meta: dict
    metrics: dict
    n_queries: int
    warnings: list
    duration_s: float
    label: str
    created_at: datetime
    kind: str = "retrieval"


@dataclass
class ResultRow:
    query_id: str
    question: str
    metrics: dict[str, float]
    ranking: list
    relevant: dict[str, int]
    trace_id: str | None
    latency_ms: float
    details: dict | None = None


@dataclass
class StoredRun:
    info: RunInfo
    results: dict[str, ResultRow] = field(default_factory=dict)


def _info(r: EvalRun) -> RunInfo:
    return RunInfo(r.id, r.batch, r.goldenset_name, r.goldenset_sha, r.config_name, r.params,
                   r.index_meta, r.metrics, r.n_queries, r.warnings, r.duration_s, r.label,
                   r.created_at, r.kind or "retrieval")


def save_report(rs, report, *, label: str = "") -> list[int]:
    """Store every configuration of an EvalReport as one run; returns the run ids."""
    gs = report.goldenset
    batch = str(uuid.uuid4())
    ids = []
    with rs.store.session() as s:
        gs_id = s.scalar(select(EvalGoldenset.id).where(EvalGoldenset.name == gs.name))
        for name, c in report.configs.items():
            run = EvalRun(batch=batch, goldenset_id=gs_id, goldenset_name=gs.name,
                          goldenset_sha=gs.sha256(), config_name=name,
                          params=c.params.model_dump(mode="json"), index_meta=report.index_meta,
                          metrics=c.metrics, n_queries=len(c.per_query),
                          warnings=list(report.warnings), duration_s=c.duration_s,
                          label=label[:200])
            s.add(run)
            s.flush()
            s.add_all([EvalResult(run_id=run.id, query_id=r.query_id, question=r.question,
                                  metrics=r.metrics, ranking=[[k, v] for k, v in r.ranking],
                                  relevant=r.relevant, trace_id=r.trace_id,
                                  latency_ms=r.latency_ms) for r in c.per_query.values()])
            ids.append(run.id)
    return ids


def save_answer_report(rs, report, *, label: str = "") -> int:
    """Store an answer benchmark (eval/answers.py) as one run of kind "answers": the provider
    as its configuration, the aggregated metrics, one result per question with the answer in
    `details`. Returns the run id."""
    from eval.answers import cited_numbers
    from eval.runner import index_metadata

    gs = report.goldenset

    with rs.store.session() as s:
        run = EvalRun(kind="answers", batch=str(uuid.uuid4()), goldenset_id=None,
                      goldenset_name=gs.name, goldenset_sha=gs.sha256(),
                      config_name=report.provider[:100],
                      params={"provider": report.provider, "split": report.split,
                              "max_tokens": report.max_tokens,
                              "chat_expand": rs.settings.chat_expand,
                              "chat_min_score": rs.settings.chat_min_score,
                              "chat_inventory_cutoff": rs.settings.chat_inventory_cutoff},
                      index_meta=index_metadata(rs, [gs.collection] if gs.collection else None),
                      metrics=report.metrics, n_queries=len(report.results),
                      warnings=list(report.warnings), duration_s=report.duration_s,
                      label=label[:200])
        s.add(run)
        s.flush()
        for r in report.results:
            a, q = r.answer, r.question
            by_n = {src["n"]: src.get("filename") for src in a.sources}
            cited = [by_n[n] for n in dict.fromkeys(cited_numbers(a.text)) if n in by_n]
            s.add(EvalResult(
                run_id=run.id, query_id=q.id, question=q.question, metrics=r.metrics,
                ranking=[[src.get("filename"), round(1.0 / src["n"], 6)] for src in a.sources],
                relevant={d: 1 for d in dict.fromkeys([x.doc for x in q.support] + q.documents)},
                trace_id=a.trace_id, latency_ms=a.latency_ms,
                details={"type": q.type, "language": q.language, "split": q.split,
                         "answer": a.text, "mode": a.mode, "cited_documents": cited,
                         "expected": q.answers, "fallback": a.fallback}))
        return run.id


def _run_visible(s, scope: Scope, index_meta: dict | None) -> bool:
    if scope.unrestricted:
        return True
    meta = index_meta or {}
    searched = meta.get("scope_collections")
    if searched is None:
        searched = meta.get("collections")
    if searched is None:  # the whole corpus, before knowledge bases
        searched = list(s.scalars(select(Collection.name)))
    return all(scope.can_read(c) for c in searched)


def list_runs(rs, goldenset: str | None = None, limit: int = 200,
              kind: str | None = "retrieval", *, scope: Scope) -> list[RunInfo]:
    """The newest runs `scope` may see, newest first; `kind` None: runs of every kind."""
    q = select(EvalRun).order_by(EvalRun.created_at.desc(), EvalRun.id.desc())
    if scope.unrestricted:
        q = q.limit(limit)
    if goldenset:
        q = q.where(EvalRun.goldenset_name == goldenset)
    if kind:
        q = q.where(EvalRun.kind == kind)
    out: list[RunInfo] = []
    with rs.store.session() as s:
        for r in s.scalars(q):
            if _run_visible(s, scope, r.index_meta):
                out.append(_info(r))
                if len(out) >= limit:
                    break
    return out


def get_run(rs, run_id: int, *, scope: Scope) -> StoredRun:
    """RunNotFound for a missing run and for one `scope` may not see alike."""
    with rs.store.session() as s:
        r = s.get(EvalRun, int(run_id))
        if r is None or not _run_visible(s, scope, r.index_meta):
            raise RunNotFound(f"no evaluation run with id {run_id} "
                              f"(`python -m eval runs` lists them)")
        rows = s.scalars(select(EvalResult).where(EvalResult.run_id == r.id)
                         .order_by(EvalResult.id)).all()
        return StoredRun(_info(r), {x.query_id: ResultRow(
            x.query_id, x.question, x.metrics, x.ranking, x.relevant, x.trace_id, x.latency_ms,
            x.details) for x in rows})


def delete_run(rs, run_id: int) -> None:
    with rs.store.session() as s:
        s.execute(delete(EvalResult).where(EvalResult.run_id == int(run_id)))
        s.execute(delete(EvalRun).where(EvalRun.id == int(run_id)))
