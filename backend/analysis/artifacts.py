"""The analysis artifacts cache (table analysis_artifacts, migration 0015).

One row per (document version, kind, variant): an extractor's items or a summary, with the
version of the rules that produced it (`producer_version`) and a signature of the input
(`source_sig`: content hash, text length, section count and first section id). A row is used
only when both still match; otherwise the result is recomputed and the row replaced. So a
changed extractor or a re-ingested section tree invalidates by itself; deleting a document
or version deletes its rows (ON DELETE CASCADE); `purge_stale` (run by `reindex`) drops the
rows of rules versions that no longer exist."""
from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import delete, func, select
from sqlalchemy.exc import IntegrityError

from backend.store.analysis_models import AnalysisArtifact
from backend.store.models import DocumentVersion, Section

SUMMARY_VERSION = "1"  # bump when the summary pipeline changes


@dataclass(frozen=True)
class Cached:
    payload: dict
    duration_ms: float


def source_signature(store, version_id: int) -> str:
    """Cheap fingerprint of what an analysis of this version reads (no text is loaded)."""
    with store.session() as s:
        sha, length = s.execute(select(DocumentVersion.sha256, func.length(DocumentVersion.text))
                                .where(DocumentVersion.id == version_id)).one()
        # the section tree: re-sectioning (a new processing profile, reclassify, reindex)
        # replaces the rows, and SQLite may hand out the same ids again, so the spans count
        count, first, last, starts, ends, levels = s.execute(
            select(func.count(Section.id), func.min(Section.id), func.max(Section.id),
                   func.sum(Section.start), func.sum(Section.end), func.sum(Section.level))
            .where(Section.version_id == version_id)).one()
    return (f"{(sha or '')[:16]}:{length or 0}:{count or 0}:{first or 0}:{last or 0}:"
            f"{starts or 0}:{ends or 0}:{levels or 0}")


def producer_versions() -> dict[str, str]:
    from backend.analysis.extractors import EXTRACTORS

    out = {f"extract:{n}": s.version for n, s in EXTRACTORS.items()}
    out["summary"] = SUMMARY_VERSION
    return out


def get_many(store, version_id: int, keys: list[tuple[str, str, str]], sig: str
             ) -> dict[tuple[str, str], Cached]:
    """keys: (kind, variant, producer_version). Returns the fresh rows by (kind, variant)."""
    if not keys:
        return {}
    wanted = {(k, v): pv for k, v, pv in keys}
    with store.session() as s:
        rows = s.execute(select(AnalysisArtifact.kind, AnalysisArtifact.variant,
                                AnalysisArtifact.producer_version, AnalysisArtifact.source_sig,
                                AnalysisArtifact.payload, AnalysisArtifact.duration_ms)
                         .where(AnalysisArtifact.version_id == version_id,
                                AnalysisArtifact.kind.in_({k for k, _, _ in keys}))).all()
    out = {}
    for kind, variant, pv, src_sig, payload, ms in rows:
        if wanted.get((kind, variant)) == pv and src_sig == sig:
            out[(kind, variant)] = Cached(payload, ms)
    return out


def put(store, version_id: int, kind: str, variant: str, producer_version: str, sig: str,
        payload: dict, item_count: int, duration_ms: float) -> None:
    """Replace the row of (version, kind, variant). Two processes computing the same result
    at once: the second insert loses the race and is dropped (the rows would be equal)."""
    try:
        with store.session() as s:
            s.execute(delete(AnalysisArtifact).where(AnalysisArtifact.version_id == version_id,
                                                     AnalysisArtifact.kind == kind,
                                                     AnalysisArtifact.variant == variant))
            s.add(AnalysisArtifact(version_id=version_id, kind=kind, variant=variant,
                                   producer_version=producer_version, source_sig=sig,
                                   payload=payload, item_count=item_count,
                                   duration_ms=duration_ms))
    except IntegrityError:
        pass


def purge_stale(store) -> int:
    """Delete artifacts written by rules versions that are no longer current. Returns the
    number of rows deleted."""
    current = producer_versions()
    n = 0
    with store.session() as s:
        rows = s.execute(select(AnalysisArtifact.id, AnalysisArtifact.kind,
                                AnalysisArtifact.producer_version)).all()
        stale = [i for i, kind, pv in rows
                 if current.get(kind if kind.startswith("extract:") else "summary") != pv]
        for i in range(0, len(stale), 500):
            n += s.execute(delete(AnalysisArtifact).where(
                AnalysisArtifact.id.in_(stale[i:i + 500]))).rowcount or 0
    return n


def clear(store, version_id: int | None = None) -> int:
    """Delete the cached artifacts of one version, or all of them."""
    with store.session() as s:
        q = delete(AnalysisArtifact)
        if version_id is not None:
            q = q.where(AnalysisArtifact.version_id == version_id)
        return s.execute(q).rowcount or 0


def count(store, version_id: int | None = None) -> int:
    with store.session() as s:
        q = select(func.count(AnalysisArtifact.id))
        if version_id is not None:
            q = q.where(AnalysisArtifact.version_id == version_id)
        return s.scalar(q) or 0
