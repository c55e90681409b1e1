"""`check` and `check --repair`: do the store and both indexes agree, and can every chunk's
vector and keyword entry really be read back?

Comparing id sets is not enough: after two processes wrote the embedded Chroma index with
stale clients, every id was still listed while hundreds of vectors could no longer be found
by a search with their own vector. So `check` also reads entries back — a sample of active
chunks by default (`check_sample`), all of them with `full=True`:
- vector: the stored vector can be fetched, and a search with it finds the chunk (or an
  identical vector: duplicate texts embed identically);
- keyword: the entry can be fetched by chunk id and holds the store's text;
- memberships: both entries carry the collection tokens the store gives their document
  (backend/ingest/memberships.py); `--repair` rewrites stale ones in place.
Read-back runs without the index write lock (it may take long); suspects are verified again
under the lock, so a concurrent delete is not reported as damage."""
from __future__ import annotations

import logging
import random
from typing import Callable, Iterable

import numpy as np

from backend.errors import BackendUnavailable
from backend.ingest import memberships
from backend.ingest.indexing import IndexWriter
from backend.ingest.rebuild import rebuild
from backend.ingest.records import mark_failed
from backend.ingest.reports import CheckReport, RepairReport
from backend.services.jobs import live_job_ids, mark_dead_jobs
from backend.store import repo
from backend.store.models import Document, DocumentVersion, Section

log = logging.getLogger(__name__)

READ_BATCH = 256
SELF_HITS = 10  # a chunk must be among the nearest SELF_HITS of its own vector
RETRY_HITS = 100  # ... or, on a second look, among RETRY_HITS
SAME_VECTOR = 0.9999  # cosine at which another chunk's vector counts as the same vector


# ---- check ----------------------------------------------------------------------------------

def check(cs: "Consistency", *, full: bool = False, sample: int | None = None,
          on_progress: Callable[[int, int], None] | None = None) -> CheckReport:
    rs = cs.rs
    mark_dead_jobs(cs.store)
    report = CheckReport(full=full)
    with rs.index_lock.hold("check the indexes"):  # a consistent snapshot of the id sets
        report.stuck_versions = cs.stuck_versions()
        with cs.store.session() as s:
            expected = repo.active_chunk_ids(s)
            in_flight = {c.id for v in s.query(DocumentVersion).filter(
                DocumentVersion.status.in_(["pending", "indexing"])).all()
                if v.id not in report.stuck_versions for c in repo.chunks_of(s, v.id)}
        report.active_chunks = len(expected)
        for name, index in (("vector", rs.vector_index), ("keyword", rs.keyword_index)):
            try:
                have = index.ids()
            except Exception as exc:  # a broken index must be reported, not crash check
                report.errors.append(f"{name} index: cannot list entries ({exc})")
                if isinstance(exc, BackendUnavailable):
                    report.unreachable.append(name)
                have = set()
            setattr(report, f"{name}_orphans", sorted(have - expected - in_flight))
            setattr(report, f"{name}_missing", sorted(expected - have))
    present = sorted(expected - set(report.vector_missing) - set(report.keyword_missing))
    limit = sample or cs.settings.check_sample
    chosen = present if full or len(present) <= limit else sorted(
        random.Random().sample(present, limit))
    report.read_back = len(chosen)
    vec_bad, kw_bad = _read_back(cs, chosen, report, on_progress)
    if vec_bad or kw_bad:  # look again under the lock: only what is still active counts
        with rs.index_lock.hold("check the indexes"):
            with cs.store.session() as s:
                still = repo.active_chunk_ids(s)
            again = CheckReport()
            v2, k2 = _read_back(cs, sorted((vec_bad | kw_bad) & still), again, None,
                                retry=True)
            report.errors += [e for e in again.errors if e not in report.errors]
        report.vector_unreadable = sorted(set(again.vector_unreadable))
        report.vector_unretrievable = sorted(set(again.vector_unretrievable))
        report.keyword_unreadable = sorted(set(again.keyword_unreadable))
        report.memberships_stale = sorted(set(again.memberships_stale))
    report.name_documents(cs.store)
    return report


def _batches(items: list[str], n: int) -> Iterable[list[str]]:
    for i in range(0, len(items), n):
        yield items[i:i + n]


def _read_back(cs: "Consistency", ids: list[str], report: CheckReport,
               on_progress: Callable[[int, int], None] | None, *,
               retry: bool = False) -> tuple[set[str], set[str]]:
    """Read vectors and keyword entries of `ids` back; record what fails in `report`."""
    rs = cs.rs
    vec_bad: set[str] = set()
    kw_bad: set[str] = set()
    done = 0
    for part in _batches(ids, READ_BATCH):
        with cs.store.session() as s:
            texts = {cid: c.text for cid, c in repo.chunks_by_ids(s, part).items()}
        try:
            vecs = rs.vector_index.get_embeddings(part)
        except Exception as exc:
            report.errors.append(f"vector index: cannot read vectors ({exc})")
            vecs = {}
            vec_bad.update(part)
        else:
            unreadable = [c for c in part if c not in vecs]
            report.vector_unreadable += unreadable
            vec_bad.update(unreadable)
            lost = _not_found_by_own_vector(rs.vector_index, vecs,
                                            RETRY_HITS if retry else SELF_HITS, report)
            report.vector_unretrievable += lost
            vec_bad.update(lost)
        try:
            stored = rs.keyword_index.texts(part)
        except Exception as exc:
            report.errors.append(f"keyword index: cannot read entries ({exc})")
            stored = {}
        wrong = [c for c in part if stored.get(c) != texts.get(c)]
        report.keyword_unreadable += wrong
        kw_bad.update(wrong)
        stale = _stale_memberships(cs, part, report)
        report.memberships_stale += stale
        kw_bad.update(stale)  # looked at again under the lock, like damage
        done += len(part)
        if on_progress:
            on_progress(done, len(ids))
    return vec_bad, kw_bad


def _stale_memberships(cs: "Consistency", ids: list[str], report: CheckReport) -> list[str]:
    """Chunks whose stored membership tokens (in either index) differ from the store's."""
    want = memberships.expected_tokens(cs.rs, ids)
    stale: set[str] = set()
    vec = cs.rs.vector_index
    copies = [("vector", vec.memberships), ("keyword", cs.rs.keyword_index.memberships)]
    if hasattr(vec, "memberships_in_log"):  # the exact-search log's copy (filtered searches)
        copies.append(("vector log", vec.memberships_in_log))
    for name, read in copies:
        try:
            have = read(ids)
        except Exception as exc:
            report.errors.append(f"{name} index: cannot read memberships ({exc})")
            continue
        stale.update(c for c, toks in have.items() if c in want and toks != want[c])
    return sorted(stale)


EXACT_SEARCHED = 16  # per read-back batch: own-vector searches when the index searches exactly


def _not_found_by_own_vector(index, vecs: dict[str, np.ndarray], k: int,
                             report: CheckReport) -> list[str]:
    """Chunks a search with their own vector does not find. An index that searches exactly
    (`backend.index.exact_vectors`) finds a chunk whenever its searched vector is the stored
    one — every exact search ranks that vector first, ties only with identical vectors — so
    there every vector is compared with the one the search holds (O(n), where searching all
    of them costs O(n²): ten minutes for `check --full` at 100k chunks) and EXACT_SEARCHED of
    them are searched for as well, which keeps the search itself under test."""
    exact = getattr(index, "exact", None)
    if exact is None or getattr(index, "search_mode", None) != "exact" or not vecs:
        return _searched_not_found(index, vecs, k, report)
    try:
        held = exact.vectors(list(vecs))
    except Exception as exc:
        report.errors.append(f"vector index: cannot read the exact-search log ({exc})")
        return list(vecs)
    differ = {c for c, v in vecs.items()
              if c not in held or float(held[c] @ _unit(v)) < SAME_VECTOR}
    ids = list(vecs)
    searched = ids if len(ids) <= EXACT_SEARCHED else random.Random().sample(ids, EXACT_SEARCHED)
    lost = _searched_not_found(index, {c: vecs[c] for c in searched}, k, report)
    return [c for c in ids if c in differ or c in set(lost)]


def _unit(v) -> np.ndarray:
    v = np.asarray(v, dtype=np.float32)
    n = float(np.linalg.norm(v))
    return v / n if n else v


def _searched_not_found(index, vecs: dict[str, np.ndarray], k: int,
                        report: CheckReport) -> list[str]:
    ids = list(vecs)
    if not ids:
        return []
    try:
        results = index.search_many([vecs[c] for c in ids], k)
    except Exception as exc:
        report.errors.append(f"vector index: search failed ({exc})")
        return ids
    return [cid for cid, hits in zip(ids, results)
            if not any(h.chunk_id == cid or h.score >= SAME_VECTOR for h in hits)]


# ---- read-back after an ingest ----------------------------------------------------------------

READBACK_SAMPLE = 16  # chunks per published batch searched by their own vector (at least
# one of every file); measured: docs/benchmarks.md, "Read-back after ingest"


def readback_sample(files: list[list[str]], size: int = READBACK_SAMPLE,
                    rnd: random.Random | None = None) -> list[str]:
    """Chunk ids to read back from a published batch (`files`: each file's chunk ids): one
    chunk of every file, then random others up to `size` in all."""
    rnd = rnd or random.Random()
    chosen = [rnd.choice(ids) for ids in files if ids]
    rest = [c for ids in files for c in ids if c not in set(chosen)]
    extra = max(0, size - len(chosen))
    return chosen + (rnd.sample(rest, extra) if len(rest) > extra else rest)


def unretrievable(index, vectors: dict[str, np.ndarray]) -> tuple[list[str], str | None]:
    """The chunks among `vectors` (id -> the vector just written) that a search with their own
    vector does not return among the nearest SELF_HITS; (ids, error) — an index that cannot
    be searched makes all of them unretrievable, with the reason."""
    report = CheckReport()
    lost = _not_found_by_own_vector(index, vectors, SELF_HITS, report)
    return lost, (report.errors[0] if report.errors else None)


# ---- repair ---------------------------------------------------------------------------------

def repair(cs: "Consistency", *, full: bool = False,
           on_progress: Callable[[int, int], None] | None = None) -> RepairReport:
    """Make store and indexes agree, then check again. Versions interrupted mid-ingest are
    marked failed; orphaned entries removed; missing or damaged entries re-added (re-embedded);
    an index that answers but cannot be read at all, or that targeted repair does not heal,
    is rebuilt from the store (backend/ingest/rebuild.py); one that cannot be reached is left
    be and named in `not_reached`."""
    rs = cs.rs
    interrupted = cs.repair_interrupted()
    found = check(cs, full=full)
    if not full and (found.vector_unreadable or found.vector_unretrievable
                     or found.keyword_unreadable or found.memberships_stale):
        found = check(cs, full=True)  # damage in a sample: find all of it
    out = RepairReport(found=found, after=found, interrupted_versions=interrupted)
    down = set(found.unreachable)
    broken = {n for n in ("vector", "keyword") if _failed(found, n)}
    with rs.index_lock.hold("repair the indexes"):
        if found.vector_orphans and _attempt(out, "remove vector orphans",
                                             rs.vector_index.delete, found.vector_orphans):
            out.orphans_removed += len(found.vector_orphans)
        if found.keyword_orphans and _attempt(out, "remove keyword orphans",
                                              rs.keyword_index.delete, found.keyword_orphans):
            out.orphans_removed += len(found.keyword_orphans)
        out.not_reached += [next(e for e in found.errors if e.startswith(n)) for n in sorted(down)]
        for name in sorted(broken):
            _rebuild(cs, out, name, on_progress)
        vec = [] if "vector" in down | broken else sorted(found.vector_damage)
        kw = [] if "keyword" in down | broken else sorted(found.keyword_damage)
        if _attempt(out, "re-add entries", _replace, cs, vec, kw):
            out.vectors_readded += len(vec)
            out.keyword_readded += len(kw)
        if found.memberships_stale and "keyword" not in down | broken:
            with cs.store.session() as s:
                docs = {c.document_id for c in
                        repo.chunks_by_ids(s, found.memberships_stale).values()}
            _attempt(out, "rewrite memberships", lambda: setattr(
                out, "memberships_synced", memberships.sync(cs.rs, docs)))
        cs.index.record_counts()
    out.after = check(cs, full=full or bool(found.vector_damage | found.keyword_damage
                                             | set(found.memberships_stale)))
    unhealed = {n for n in ("vector", "keyword") if getattr(out.after, f"{n}_damage")
                or _failed(out.after, n)} - broken
    if unhealed and not out.not_reached:  # targeted repair did not heal it: rebuild
        with rs.index_lock.hold("repair the indexes"):
            for name in sorted(unhealed):
                _rebuild(cs, out, name, on_progress)
            cs.index.record_counts()
        out.after = check(cs, full=True)
    return out


def _failed(report: CheckReport, name: str) -> bool:
    """The `name` index answered but could not be read (an error that is not unreachability)."""
    return name not in report.unreachable and any(e.startswith(name) for e in report.errors)


def _rebuild(cs: "Consistency", out: RepairReport, name: str,
             on_progress: Callable[[int, int], None] | None) -> None:
    """Rebuild one index from the store; the report counts its entries as re-added."""
    def run():
        n = rebuild(cs, name, on_progress)
        if name == "vector":
            out.vectors_readded, out.vector_index_rebuilt = n, True
        else:
            out.keyword_readded, out.keyword_index_rebuilt = n, True
    _attempt(out, f"rebuild the {name} index", run)


def _attempt(out: RepairReport, what: str, fn, *args) -> bool:
    """Run one repair step; an index that cannot be reached is recorded in the report
    (`not_reached`) instead of ending the repair. True when the step ran."""
    try:
        fn(*args)
        return True
    except BackendUnavailable as e:
        out.not_reached.append(f"{what}: {e}")
        return False


def _replace(cs: "Consistency", vec_ids: list[str], kw_ids: list[str]) -> None:
    """Delete damaged entries (where present) and add them again from the store."""
    if vec_ids:
        cs.rs.vector_index.delete(vec_ids)
    if kw_ids:
        cs.rs.keyword_index.delete(kw_ids)
    if vec_ids or kw_ids:
        cs.readd(sorted(set(vec_ids) | set(kw_ids)), set(vec_ids), set(kw_ids))


class Consistency:
    """`check`, `repair` and the repair of interrupted ingests, for the store and both
    indexes of one `Ragscope`; the Ingestor (backend/ingest/service.py) holds one."""

    def __init__(self, rs, index: IndexWriter):
        self.rs, self.store, self.settings, self.index = rs, rs.store, rs.settings, index

    def check(self, *, full: bool = False, sample: int | None = None,
              on_progress: Callable[[int, int], None] | None = None) -> CheckReport:
        """Compare store and indexes and read entries back (a sample, or all with `full`);
        see backend/ingest/consistency.py."""
        return check(self, full=full, sample=sample, on_progress=on_progress)

    def repair(self, *, full: bool = False,
               on_progress: Callable[[int, int], None] | None = None) -> RepairReport:
        """Make store and indexes agree and report what was repaired and the state after."""
        return repair(self, full=full, on_progress=on_progress)

    def stuck_versions(self) -> list[int]:
        """Versions left in pending/indexing by a job that no longer runs."""
        live = live_job_ids(self.store)
        with self.store.session() as s:
            rows = s.query(DocumentVersion).filter(
                DocumentVersion.status.in_(["pending", "indexing"])).all()
            return [v.id for v in rows if (v.meta or {}).get("job_id") not in live]

    def repair_interrupted(self) -> int:
        """Cheap repair run before every ingest batch: chunks of versions whose ingest was
        interrupted are removed from both indexes and the versions are marked failed."""
        mark_dead_jobs(self.store)
        with self.rs.index_lock.hold("repair interrupted ingests"):
            stuck = self.stuck_versions()
            for vid in stuck:
                with self.store.session() as s:
                    ids = [c.id for c in repo.chunks_of(s, vid)]
                # an index that is down keeps them as orphans: removed by a later repair
                for problem in self.index.delete(ids, tolerant=True):
                    log.warning("repairing interrupted version %s: %s", vid, problem)
                mark_failed(self.store, vid, "ingestion was interrupted; ingest the file again")
        return len(stuck)

    def readd(self, missing: list[str], vmiss: set[str], kmiss: set[str]) -> None:
        with self.store.session() as s:
            rows = repo.chunks_by_ids(s, missing)
            docs = {d.id: d for d in s.query(Document).filter(
                Document.id.in_({c.document_id for c in rows.values()})).all()}
            secs = {x.id: x.title for x in s.query(Section).filter(
                Section.id.in_({c.section_id for c in rows.values() if c.section_id})).all()}
            langs = {v.id: v.language for v in s.query(DocumentVersion).filter(
                DocumentVersion.id.in_({c.version_id for c in rows.values()})).all()}
            chunks = [self.index.indexed(c, docs[c.document_id], secs.get(c.section_id, ""),
                                         langs[c.version_id]) for c in rows.values()]
        with self.rs.index_lock.hold("re-add chunks"):
            memberships.fill(self.rs, chunks)
            self._readd_chunks(chunks, vmiss, kmiss)

    def _readd_chunks(self, chunks, vmiss: set[str], kmiss: set[str]) -> None:
        vec = [c for c in chunks if c.chunk_id in vmiss]
        if vec:
            self.rs.vector_index.add(vec, self.rs.embedder.encode([c.text for c in vec]))
        kw = [c for c in chunks if c.chunk_id in kmiss]
        if kw:
            self.rs.keyword_index.add(kw)
