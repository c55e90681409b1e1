"""BEIR datasets: `corpus.jsonl` (`_id`, `title`, `text`), `queries.jsonl` (`_id`, `text`) and
`qrels/<split>.tsv` (query-id, corpus-id, score; header line optional, CRLF tolerated; .gz
variants of the JSONL files are read too).

`import_beir` ingests the corpus into its own collection (`beir-<name>`), one document per
corpus entry (a .txt of title and text named `<name>--<_id>.txt`, source_uri
`beir://<name>--<_id>.txt`, the BEIR id in the document's meta as `beir_id`), and stores a
goldenset `<name>` with doc_key "beir", so that `python -m eval run <name>` evaluates by BEIR document id. Entries whose content duplicates an
earlier one are merged into it (ragscope keeps one document per content) and the goldenset's
judgements are rewritten to the surviving id. Qrels naming ids that are not in the corpus are
reported and left out; so are queries left without relevant documents."""
from __future__ import annotations

import gzip
import io
import json
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterator

from sqlalchemy import select

from backend.ingest.records import IngestItem, IngestProgress
from backend.store.models import Document
from eval.goldenset import Goldenset, GoldensetError, GoldQuery, Relevant, make_goldenset

MAX_WARNINGS = 50  # listed one by one; the rest are counted


class BeirError(GoldensetError):
    """A BEIR folder is missing a file or has a malformed line."""


@dataclass
class BeirData:
    name: str
    corpus_path: Path
    queries: dict[str, str]
    qrels: dict[str, dict[str, int]]
    warnings: list[str] = field(default_factory=list)


@dataclass
class ImportResult:
    name: str
    collection: str
    documents: int  # corpus entries read
    new: int
    unchanged: int
    merged: int  # duplicates of another entry's content
    failed: int
    queries: int  # in the goldenset
    seconds: float
    warnings: list[str] = field(default_factory=list)

    @property
    def docs_per_s(self) -> float:
        return self.documents / self.seconds if self.seconds else 0.0


def _open_text(path: Path) -> io.TextIOBase:
    if path.suffix == ".gz":
        return io.TextIOWrapper(gzip.open(path, "rb"), encoding="utf-8", newline=None)
    return open(path, encoding="utf-8-sig", newline=None)  # newline=None: CRLF -> \n


def _find(folder: Path, stem: str) -> Path:
    for cand in (folder / f"{stem}.jsonl", folder / f"{stem}.jsonl.gz"):
        if cand.exists():
            return cand
    raise BeirError(f"{folder}: no {stem}.jsonl (BEIR layout: corpus.jsonl, queries.jsonl, "
                    f"qrels/test.tsv)")


def iter_jsonl(path: Path) -> Iterator[tuple[int, dict]]:
    """(line number, object) for every non-blank line; BeirError names a malformed line."""
    with _open_text(path) as f:
        for n, line in enumerate(f, 1):
            if not line.strip():
                continue
            try:
                obj = json.loads(line)
            except json.JSONDecodeError as e:
                raise BeirError(f"{path.name} line {n}: malformed JSON ({e.msg})") from None
            if not isinstance(obj, dict) or "_id" not in obj:
                raise BeirError(f"{path.name} line {n}: expected an object with an '_id'")
            yield n, obj


def read_qrels(path: Path) -> dict[str, dict[str, int]]:
    qrels: dict[str, dict[str, int]] = {}
    with _open_text(path) as f:
        for n, line in enumerate(f, 1):
            parts = line.strip().split("\t") if "\t" in line else line.split()
            if not parts or not parts[0]:
                continue
            if len(parts) < 3:
                raise BeirError(f"{path.name} line {n}: expected query-id, corpus-id, score")
            try:
                score = int(float(parts[-1]))
            except ValueError:
                if n == 1:  # the header line: query-id corpus-id score
                    continue
                raise BeirError(f"{path.name} line {n}: score {parts[-1]!r} is not a number") \
                    from None
            qid, did = parts[0], parts[-2] if len(parts) == 4 else parts[1]  # TREC: q 0 d s
            qrels.setdefault(qid, {})[did] = max(score, qrels.get(qid, {}).get(did, score))
    return qrels


def load_beir(folder: str | Path, *, name: str | None = None, split: str = "test") -> BeirData:
    folder = Path(folder)
    if not folder.is_dir():
        raise BeirError(f"{folder}: no such folder")
    corpus = _find(folder, "corpus")
    queries = {str(o["_id"]): str(o.get("text", "")) for _, o in iter_jsonl(_find(folder, "queries"))}
    qpath = folder / "qrels" / f"{split}.tsv"
    if not qpath.exists():
        found = sorted((folder / "qrels").glob("*.tsv")) if (folder / "qrels").is_dir() else []
        if len(found) != 1:
            raise BeirError(f"{folder}: no qrels/{split}.tsv"
                            + (f" (found {', '.join(p.name for p in found)}; choose one with "
                               f"--split)" if found else ""))
        qpath = found[0]
    return BeirData(name or folder.name, corpus, queries, read_qrels(qpath))


def to_goldenset(data: BeirData, corpus_ids: set[str], alias: dict[str, str] | None = None,
                 collection: str | None = None) -> tuple[Goldenset, list[str]]:
    """The goldenset of the qrels: unknown corpus ids and queries reported and left out."""
    alias = alias or {}
    warns = list(data.warnings)
    missing_docs = missing_q = skipped = 0
    queries = []
    for qid, rel in data.qrels.items():
        if qid not in data.queries:
            missing_q += 1
            if missing_q <= MAX_WARNINGS:
                warns.append(f"qrels: query '{qid}' is not in queries.jsonl; ignored")
            continue
        kept: dict[str, int] = {}
        for did, grade in rel.items():
            if did not in corpus_ids:
                missing_docs += 1
                if missing_docs <= MAX_WARNINGS:
                    warns.append(f"qrels: query '{qid}' names corpus id '{did}', which is not "
                                 f"in corpus.jsonl; ignored")
                continue
            did = alias.get(did, did)
            if grade > 0:
                kept[did] = max(grade, kept.get(did, 0))
        if kept:
            queries.append(GoldQuery(qid, data.queries[qid] or qid,
                                     [Relevant(d, g) for d, g in kept.items()]))
        else:
            skipped += 1
            if skipped <= MAX_WARNINGS:
                warns.append(f"query '{qid}': no relevant document left; skipped")
    for what, n in (("qrels with missing corpus ids", missing_docs),
                    ("qrels with unknown query ids", missing_q),
                    ("queries skipped", skipped)):
        if n > MAX_WARNINGS:
            warns.append(f"... {n - MAX_WARNINGS} more {what}")
    gs = make_goldenset(data.name, queries, doc_key="beir", collection=collection,
                        description=f"BEIR dataset {data.name} ({len(queries)} queries)")
    return gs, warns


def _doc_bytes(obj: dict) -> bytes:
    title, text = str(obj.get("title") or "").strip(), str(obj.get("text") or "").strip()
    return (f"{title}\n\n{text}" if title else text).encode("utf-8")


def _safe(name: str) -> str:
    return "".join(c if c.isalnum() or c in "-_." else "_" for c in name)[:150] or "doc"


def _entries(data: BeirData, limit: int | None, warns: list[str]
             ) -> Iterator[tuple[str, dict]]:
    seen: set[str] = set()
    taken = 0
    for n, obj in iter_jsonl(data.corpus_path):
        if limit and taken >= limit:
            break
        did = str(obj["_id"])
        if did in seen:
            _warn(warns, f"corpus.jsonl line {n}: duplicate _id '{did}'; ignored")
            continue
        seen.add(did)
        taken += 1
        yield did, obj


def _warn(warns: list[str], msg: str) -> None:
    if len(warns) < MAX_WARNINGS:
        warns.append(msg)
    elif len(warns) == MAX_WARNINGS:
        warns.append("... further warnings not listed")


def import_beir(rs, folder: str | Path, *, name: str | None = None, split: str = "test",
                limit: int | None = None,
                on_progress: Callable[[IngestProgress], None] | None = None) -> ImportResult:
    """Ingest the corpus and store the goldenset. All documents go through one
    `Ingestor.ingest_many` call (one ingest job; extraction overlaps embedding), each with its
    BEIR title and its id in the document's meta, so titles are in the indexes from the
    start. Re-importing the same dataset is cheap: unchanged documents are recognised by
    their content hash. `on_progress` gets the ingest's IngestProgress (documents, chunks
    embedded, ETA)."""
    from backend.ingest.service import Ingestor
    from eval.store import save_goldenset

    t0 = time.perf_counter()
    data = load_beir(folder, name=name, split=split)
    collection = f"beir-{data.name}"
    all_ids = [str(o["_id"]) for _, o in iter_jsonl(data.corpus_path)]
    all_ids = all_ids[:limit] if limit else all_ids
    total = len(set(all_ids))
    try:  # refuse before ingesting anything when no judgement would be left
        to_goldenset(data, set(all_ids), collection=collection)
    except GoldensetError:
        raise BeirError(f"{folder}: no qrel names both a query of queries.jsonl and a "
                        f"document of corpus.jsonl with a score above 0; nothing to "
                        f"evaluate") from None
    warns: list[str] = []
    used: set[str] = set()

    def items() -> Iterator[IngestItem]:
        for did, obj in _entries(data, limit, warns):
            fn = f"{_safe(data.name)}--{_safe(did)}"
            while fn in used:  # two ids that differ only in unsafe characters
                fn += "_"
            used.add(fn)
            title = str(obj.get("title") or "").strip() or did
            yield IngestItem(f"{fn}.txt", data=_doc_bytes(obj), source_kind="beir",
                             title=title, meta={"beir_id": did, "beir_dataset": data.name},
                             context=did)

    dids: list[str] = []

    def progress(p: IngestProgress) -> None:
        if p.item is not None:
            dids.append(p.item.context)
        if on_progress:
            on_progress(p)

    outs = Ingestor(rs).ingest_many(items(), total=total, collection=collection,
                                    source_kind="beir", on_progress=progress)
    ids: set[str] = set()
    failed: set[str] = set()
    alias_doc: dict[str, int] = {}  # duplicate id -> surviving document id
    counts = {"new": 0, "new_version": 0, "unchanged": 0, "duplicate": 0, "failed": 0}
    named: dict[int, tuple[str, str]] = {}
    for did, out in zip(dids, outs):
        ids.add(did)
        counts[out.status] = counts.get(out.status, 0) + 1
        if out.status == "duplicate":
            alias_doc[did] = out.document_id
        elif not out.ok:
            failed.add(did)
            _warn(warns, f"corpus id '{did}' not imported: {out.error}")
        elif out.status == "unchanged":
            named[out.document_id] = did
    _mark_documents(rs, named, data.name)
    if len(outs) < total:  # the ingest job was cancelled
        _warn(warns, f"import cancelled after {len(outs)} of {total} documents")
    alias = _aliases(rs, alias_doc)
    gs, gwarns = to_goldenset(data, ids - failed, alias, collection)
    save_goldenset(rs, gs, source=f"beir:{Path(folder).resolve()}")
    return ImportResult(data.name, collection, len(outs), counts["new"] + counts["new_version"],
                        counts["unchanged"], counts["duplicate"], counts["failed"],
                        len(gs.queries), round(time.perf_counter() - t0, 3), warns + gwarns)


def _mark_documents(rs, named: dict[int, str], dataset: str) -> None:
    """Unchanged documents imported before BEIR ids were stored at ingest time: record the
    id (new documents and new versions carry it from `IngestItem.meta`)."""
    if not named:
        return
    with rs.store.session() as s:
        for doc in s.scalars(select(Document).where(Document.id.in_(list(named)))):
            if (doc.meta or {}).get("beir_id") != named[doc.id]:
                doc.meta = {**(doc.meta or {}), "beir_id": named[doc.id],
                            "beir_dataset": dataset}


def _aliases(rs, alias_doc: dict[str, int]) -> dict[str, str]:
    """Duplicate BEIR id -> the BEIR id of the document that holds its content."""
    if not alias_doc:
        return {}
    with rs.store.session() as s:
        rows = s.execute(select(Document.id, Document.meta)
                         .where(Document.id.in_(set(alias_doc.values())))).all()
    key = {i: str((m or {}).get("beir_id")) for i, m in rows if (m or {}).get("beir_id")}
    return {did: key[doc] for did, doc in alias_doc.items() if doc in key}
