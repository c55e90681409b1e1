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

import random
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Callable, Iterable

import numpy as np

from backend.errors import BackendUnavailable
from backend.ingest import memberships
from backend.jobs import mark_dead_jobs
from backend.store import repo
from backend.store.models import DocumentVersion

if TYPE_CHECKING:
    from backend.ingest.service import Ingestor

READ_BATCH = 256
SELF_HITS = 10  # a chunk must be among the nearest SELF_HITS of its own vector
RETRY_HITS = 100  # ... or, on a second look, among RETRY_HITS
SAME_VECTOR = 0.9999  # cosine at which another chunk's vector counts as the same vector


@dataclass
class CheckReport:
    """Differences between the store and the indexes; every list empty means consistent."""

    stuck_versions: list[int] = field(default_factory=list)
    vector_orphans: list[str] = field(default_factory=list)
    vector_missing: list[str] = field(default_factory=list)
    vector_unreadable: list[str] = field(default_factory=list)
    vector_unretrievable: list[str] = field(default_factory=list)
    keyword_orphans: list[str] = field(default_factory=list)
    keyword_missing: list[str] = field(default_factory=list)
    keyword_unreadable: list[str] = field(default_factory=list)
    memberships_stale: list[str] = field(default_factory=list)  # in either index
    errors: list[str] = field(default_factory=list)  # an index that cannot be read at all
    active_chunks: int = 0
    read_back: int = 0
    full: bool = False
    # per problem field of chunks of the store: the documents they belong to
    # ({"id", "title", "filename", "chunks"}), so a user can tell what search cannot find
    documents: dict[str, list[dict]] = field(default_factory=dict)

    PROBLEM_FIELDS = ("stuck_versions", "vector_orphans", "vector_missing", "vector_unreadable",
                      "vector_unretrievable", "keyword_orphans", "keyword_missing",
                      "keyword_unreadable", "memberships_stale", "errors")

    def problems(self) -> dict[str, list]:
        return {k: getattr(self, k) for k in self.PROBLEM_FIELDS if getattr(self, k)}

    @property
    def ok(self) -> bool:
        return not self.problems()

    @property
    def vector_damage(self) -> set[str]:
        return set(self.vector_missing) | set(self.vector_unreadable) | set(self.vector_unretrievable)

    @property
    def keyword_damage(self) -> set[str]:
        return set(self.keyword_missing) | set(self.keyword_unreadable)

    def summary(self) -> str:
        scope = "all" if self.full else "a sample of"
        return (f"{self.active_chunks} active chunks; read back {scope} {self.read_back} "
                "from both indexes")

    def to_dict(self) -> dict:
        return asdict(self)

    DOCUMENT_FIELDS = ("vector_missing", "vector_unreadable", "vector_unretrievable",
                       "keyword_missing", "keyword_unreadable", "memberships_stale")

    def name_documents(self, store) -> None:
        """Fill `documents`: which documents the damaged chunks of each field belong to."""
        wanted = {f: getattr(self, f) for f in self.DOCUMENT_FIELDS if getattr(self, f)}
        self.documents = {f: affected_documents(store, ids) for f, ids in wanted.items()}


def affected_documents(store, chunk_ids) -> list[dict]:
    """The documents of these chunks (id, title, file name, how many of the chunks), most
    affected first; chunks no longer in the store are left out."""
    from backend.store.models import Document

    with store.session() as s:
        per_doc: dict[int, int] = {}
        for c in repo.chunks_by_ids(s, list(chunk_ids)).values():
            per_doc[c.document_id] = per_doc.get(c.document_id, 0) + 1
        rows = []
        for doc_id, n in sorted(per_doc.items(), key=lambda kv: (-kv[1], kv[0])):
            doc = s.get(Document, doc_id)
            rows.append({"id": doc_id, "title": doc.title if doc else "",
                         "filename": doc.filename if doc else "", "chunks": n})
    return rows


@dataclass
class RepairReport:
    found: CheckReport
    after: CheckReport
    interrupted_versions: int = 0
    orphans_removed: int = 0
    vectors_readded: int = 0
    keyword_readded: int = 0
    memberships_synced: int = 0
    vector_index_rebuilt: bool = False
    not_reached: list[str] = field(default_factory=list)  # repairs an index was down for

    @property
    def repaired_anything(self) -> bool:
        return bool(self.interrupted_versions or self.orphans_removed or self.vectors_readded
                    or self.keyword_readded or self.memberships_synced
                    or self.vector_index_rebuilt)

    def summary(self) -> str:
        waiting = ("; could not repair now: " + "; ".join(self.not_reached)
                   + " (run `check --repair` again when it is reachable)"
                   if self.not_reached else "")
        if not self.repaired_anything:
            return "nothing to repair" + waiting
        parts = []
        if self.interrupted_versions:
            parts.append(f"marked {self.interrupted_versions} interrupted version(s) failed "
                         "(ingest those files again)")
        if self.orphans_removed:
            parts.append(f"removed {self.orphans_removed} orphaned index entries")
        if self.vector_index_rebuilt:
            parts.append(f"rebuilt the vector index ({self.vectors_readded} vectors)")
        elif self.vectors_readded:
            parts.append(f"re-added {self.vectors_readded} vector(s)")
        if self.keyword_readded:
            parts.append(f"re-added {self.keyword_readded} keyword entr(y/ies)")
        if self.memberships_synced:
            parts.append(f"rewrote the collection memberships of {self.memberships_synced} "
                         "chunk(s)")
        return "repaired: " + "; ".join(parts) + waiting

    def to_dict(self) -> dict:
        return {"found": self.found.to_dict(), "after": self.after.to_dict(),
                "interrupted_versions": self.interrupted_versions,
                "orphans_removed": self.orphans_removed, "vectors_readded": self.vectors_readded,
                "keyword_readded": self.keyword_readded,
                "memberships_synced": self.memberships_synced,
                "vector_index_rebuilt": self.vector_index_rebuilt,
                "not_reached": list(self.not_reached)}


# ---- check ----------------------------------------------------------------------------------

def check(ing: "Ingestor", *, full: bool = False, sample: int | None = None,
          on_progress: Callable[[int, int], None] | None = None) -> CheckReport:
    rs = ing.rs
    mark_dead_jobs(ing.store)
    report = CheckReport(full=full)
    with rs.index_lock.hold("check the indexes"):  # a consistent snapshot of the id sets
        report.stuck_versions = ing._stuck_versions()
        with ing.store.session() as s:
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
                have = set()
            setattr(report, f"{name}_orphans", sorted(have - expected - in_flight))
            setattr(report, f"{name}_missing", sorted(expected - have))
    present = sorted(expected - set(report.vector_missing) - set(report.keyword_missing))
    limit = sample or ing.settings.check_sample
    chosen = present if full or len(present) <= limit else sorted(
        random.Random().sample(present, limit))
    report.read_back = len(chosen)
    vec_bad, kw_bad = _read_back(ing, chosen, report, on_progress)
    if vec_bad or kw_bad:  # look again under the lock: only what is still active counts
        with rs.index_lock.hold("check the indexes"):
            with ing.store.session() as s:
                still = repo.active_chunk_ids(s)
            again = CheckReport()
            v2, k2 = _read_back(ing, sorted((vec_bad | kw_bad) & still), again, None,
                                retry=True)
            report.errors += [e for e in again.errors if e not in report.errors]
        report.vector_unreadable = sorted(set(again.vector_unreadable))
        report.vector_unretrievable = sorted(set(again.vector_unretrievable))
        report.keyword_unreadable = sorted(set(again.keyword_unreadable))
        report.memberships_stale = sorted(set(again.memberships_stale))
    report.name_documents(ing.store)
    return report


def _batches(items: list[str], n: int) -> Iterable[list[str]]:
    for i in range(0, len(items), n):
        yield items[i:i + n]


def _read_back(ing: "Ingestor", ids: list[str], report: CheckReport,
               on_progress: Callable[[int, int], None] | None, *,
               retry: bool = False) -> tuple[set[str], set[str]]:
    """Read vectors and keyword entries of `ids` back; record what fails in `report`."""
    rs = ing.rs
    vec_bad: set[str] = set()
    kw_bad: set[str] = set()
    done = 0
    for part in _batches(ids, READ_BATCH):
        with ing.store.session() as s:
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
        stale = _stale_memberships(ing, part, report)
        report.memberships_stale += stale
        kw_bad.update(stale)  # looked at again under the lock, like damage
        done += len(part)
        if on_progress:
            on_progress(done, len(ids))
    return vec_bad, kw_bad


def _stale_memberships(ing: "Ingestor", ids: list[str], report: CheckReport) -> list[str]:
    """Chunks whose stored membership tokens (in either index) differ from the store's."""
    want = memberships.expected_tokens(ing, ids)
    stale: set[str] = set()
    vec = ing.rs.vector_index
    copies = [("vector", vec.memberships), ("keyword", ing.rs.keyword_index.memberships)]
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

def repair(ing: "Ingestor", *, full: bool = False,
           on_progress: Callable[[int, int], None] | None = None) -> RepairReport:
    """Make store and indexes agree, then check again. Versions interrupted mid-ingest are
    marked failed; orphaned entries removed; missing or damaged entries re-added (re-embedded);
    when targeted repair does not heal the vector index (or it cannot be read at all), it is
    rebuilt from the store."""
    rs = ing.rs
    interrupted = ing.repair_interrupted()
    found = check(ing, full=full)
    if not full and (found.vector_unreadable or found.vector_unretrievable
                     or found.keyword_unreadable or found.memberships_stale):
        found = check(ing, full=True)  # damage in a sample: find all of it
    out = RepairReport(found=found, after=found, interrupted_versions=interrupted)
    kw_down = any(e.startswith("keyword") for e in found.errors)  # unreachable: leave it be
    with rs.index_lock.hold("repair the indexes"):
        if found.vector_orphans and _attempt(out, "remove vector orphans",
                                             rs.vector_index.delete, found.vector_orphans):
            out.orphans_removed += len(found.vector_orphans)
        if found.keyword_orphans and _attempt(out, "remove keyword orphans",
                                              rs.keyword_index.delete, found.keyword_orphans):
            out.orphans_removed += len(found.keyword_orphans)
        if kw_down:
            out.not_reached.append(next(e for e in found.errors if e.startswith("keyword")))
        if any(e.startswith("vector") for e in found.errors):
            out.vector_index_rebuilt = _attempt(out, "rebuild the vector index", lambda: setattr(
                out, "vectors_readded", rebuild_vectors(ing, on_progress)))
        else:
            vec = sorted(found.vector_damage)
            kw = [] if kw_down else sorted(found.keyword_damage)
            if _attempt(out, "re-add entries", _replace, ing, vec, kw):
                out.vectors_readded, out.keyword_readded = len(vec), len(kw)
        if found.memberships_stale and not kw_down:
            with ing.store.session() as s:
                docs = {c.document_id for c in
                        repo.chunks_by_ids(s, found.memberships_stale).values()}
            _attempt(out, "rewrite memberships", lambda: setattr(
                out, "memberships_synced", memberships.sync(ing, docs)))
        ing._record_index_counts()
    out.after = check(ing, full=full or bool(found.vector_damage | found.keyword_damage
                                             | set(found.memberships_stale)))
    if not out.vector_index_rebuilt and not out.not_reached and (
            out.after.vector_damage or any(e.startswith("vector") for e in out.after.errors)):
        with rs.index_lock.hold("repair the indexes"):
            out.vectors_readded = rebuild_vectors(ing, on_progress)
            out.vector_index_rebuilt = True
            ing._record_index_counts()
        out.after = check(ing, full=True)
    return out


def _attempt(out: RepairReport, what: str, fn, *args) -> bool:
    """Run one repair step; an index that cannot be reached is recorded in the report
    (`not_reached`) instead of ending the repair. True when the step ran."""
    try:
        fn(*args)
        return True
    except BackendUnavailable as e:
        out.not_reached.append(f"{what}: {e}")
        return False


def _replace(ing: "Ingestor", vec_ids: list[str], kw_ids: list[str]) -> None:
    """Delete damaged entries (where present) and add them again from the store."""
    if vec_ids:
        ing.rs.vector_index.delete(vec_ids)
    if kw_ids:
        ing.rs.keyword_index.delete(kw_ids)
    if vec_ids or kw_ids:
        ing._readd(sorted(set(vec_ids) | set(kw_ids)), set(vec_ids), set(kw_ids))


def rebuild_vectors(ing: "Ingestor", on_progress: Callable[[int, int], None] | None = None,
                    batch: int = 256) -> int:
    """Drop the vector index and add every active chunk again (caller holds the lock)."""
    rs = ing.rs
    rs.vector_index.reset()
    with ing.store.session() as s:
        ids = sorted(repo.active_chunk_ids(s))
    for i in range(0, len(ids), batch):
        part = ids[i:i + batch]
        ing._readd(part, set(part), set())
        if on_progress:
            on_progress(min(i + batch, len(ids)), len(ids))
    return len(ids)
