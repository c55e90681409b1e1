"""Exact nearest-neighbour search over every stored chunk vector (issue 21, section 1).

Why not Chroma's HNSW graph for the search: hnswlib builds its graph incrementally, and a
large, dense family of vectors that arrives after an older, dissimilar region (a 2,000-page
log of near-identical lines, hundreds of notes from one small vocabulary, after the sample
corpus) gets linked almost only to itself — the neighbour-selection heuristic prunes the
links out of a family of near-duplicates, and the insertion searches are trapped inside it.
The greedy descent of later queries lands in the family and the beam search exhausts
ef_search among thousands of equidistant members before it meets one of the few links to the
older region: those chunks are still stored (and reachable in a breadth-first walk of the
graph) but no longer found, even at k=1000. Bigger M / ef_construction / ef_search only
lower the count (docs/retrieval.md, "Why vector search is exact"; docs/benchmarks.md), and the
same vectors inserted in random order give a graph without a single miss — the damage is the
order of arrival, which a growing corpus cannot choose. Exact search has no graph to damage:
every stored vector is scored against every query.

Storage: one append-only log of fixed-size records (`op`, chunk id, vector) beside Chroma's
files, written under the data dir's index write lock by `ChromaVectorIndex`. Readers of
other processes read only the bytes appended since their last look (an `os.stat` per search
when nothing changed); a rewrite (compaction, reset) gets a new inode and is read whole. A
torn last record (a writer killed mid-append) is ignored by readers and cut off by the next
writer. Vectors are kept unit-length (cosine), float32, in memory: 1.5 KiB per chunk."""
from __future__ import annotations

import os
import struct
import threading
from pathlib import Path
from typing import Iterable, Sequence

import numpy as np

MAGIC = b"RSVEXACT"
HEADER = struct.Struct("<8sI4x")  # magic, dimension
ID_BYTES = 64  # Chunk.id is String(64)
ADD, DELETE = b"A", b"D"
COMPACT_MIN_RECORDS = 20_000  # rewrite the log when it holds this many records and ...
COMPACT_RATIO = 2.0  # ... at least this many times the live vectors
SEARCH_BLOCK = 256  # query rows scored per matrix product (bounds the score matrix's memory)


class ExactVectors:
    """The vectors of one index, searched exactly. Writers call `add`/`delete`/`create`/
    `remove` while holding the index write lock; every reader method first catches up with
    the log."""

    def __init__(self, path: Path, dim: int | None = None):
        self.path = Path(path)
        self.dim = dim
        self._guard = threading.RLock()
        self._reset_memory()
        self._inode: int | None = None
        self._offset = 0

    # ---- file --------------------------------------------------------------------------
    @property
    def record_size(self) -> int:
        return 1 + ID_BYTES + 4 * int(self.dim or 0)

    def exists(self) -> bool:
        return self.path.exists()

    def create(self, dim: int) -> None:
        """An empty log for vectors of `dim` dimensions (replaces any old one atomically)."""
        self._rewrite(dim, [], np.zeros((0, dim), dtype=np.float32))

    def _rewrite(self, dim: int, ids: Sequence[str], vecs: np.ndarray) -> None:
        """Replace the log by one holding exactly these vectors: written to a temporary file
        and renamed, so a reader sees the old log or the new one, never a part."""
        self.path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        tmp = self.path.with_suffix(".tmp")
        rec = np.zeros(len(ids), dtype=_record(dim))
        rec["op"] = ADD
        rec["id"] = [_id_bytes(c) for c in ids]
        rec["v"] = vecs
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "wb") as fh:
            fh.write(HEADER.pack(MAGIC, dim))
            fh.write(rec.tobytes())
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, self.path)
        with self._guard:
            self.dim = dim
            self._reset_memory()
            self._inode, self._offset = None, 0
        self.refresh()

    def remove(self) -> None:
        self.path.unlink(missing_ok=True)
        with self._guard:
            self._reset_memory()
            self._inode, self._offset = None, 0

    def _reset_memory(self) -> None:
        self._ids: list[str] = []
        self._row: dict[str, int] = {}
        self._buf = np.zeros((0, int(self.dim or 0)), dtype=np.float32)
        self._alive = np.zeros(0, dtype=bool)
        self._dead = 0

    @property
    def _mat(self) -> np.ndarray:
        return self._buf[:len(self._ids)]

    def _grow(self, rows: int) -> None:
        """Room for `rows` rows (capacity doubles, so appending batches stays linear)."""
        if rows <= len(self._buf):
            return
        cap = max(rows, 2 * len(self._buf), 1024)
        buf = np.zeros((cap, int(self.dim)), dtype=np.float32)
        buf[:len(self._ids)] = self._buf[:len(self._ids)]
        alive = np.zeros(cap, dtype=bool)
        alive[:len(self._ids)] = self._alive[:len(self._ids)]
        self._buf, self._alive = buf, alive

    # ---- writing (caller holds the index write lock) -------------------------------------
    def add(self, ids: Sequence[str], vectors: np.ndarray) -> None:
        vecs = _unit(np.asarray(vectors, dtype=np.float32))
        if not self.exists():
            self.create(vecs.shape[1])
        self.refresh()
        if vecs.shape[1] != self.dim:
            raise ValueError(f"vectors have {vecs.shape[1]} dimensions, the index {self.dim}")
        self._append(ADD, ids, vecs)

    def delete(self, ids: Iterable[str]) -> None:
        if not self.exists():
            return
        self.refresh()
        gone = [c for c in dict.fromkeys(ids) if c in self._row]
        if gone:
            self._append(DELETE, gone, np.zeros((len(gone), self.dim), dtype=np.float32))
        self._maybe_compact()

    def _append(self, op: bytes, ids: Sequence[str], vecs: np.ndarray) -> None:
        rec = np.zeros(len(ids), dtype=_record(self.dim))
        rec["op"] = op
        rec["id"] = [_id_bytes(c) for c in ids]
        rec["v"] = vecs
        with open(self.path, "r+b") as fh:
            end = fh.seek(0, os.SEEK_END)
            whole = HEADER.size + (end - HEADER.size) // self.record_size * self.record_size
            if whole != end:  # a torn record left by a killed writer
                fh.truncate(whole)
                fh.seek(whole)
            fh.write(rec.tobytes())
            fh.flush()
            os.fsync(fh.fileno())
        self.refresh()

    def _maybe_compact(self) -> None:
        records = (self.path.stat().st_size - HEADER.size) // self.record_size
        live = len(self._row)
        if records >= COMPACT_MIN_RECORDS and records >= COMPACT_RATIO * max(live, 1):
            with self._guard:
                self._compact_memory()
                ids, mat = list(self._ids), self._mat.copy()
            self._rewrite(self.dim, ids, mat)

    # ---- reading -------------------------------------------------------------------------
    def refresh(self) -> None:
        """Catch up with the log (only the bytes appended since the last look)."""
        with self._guard:
            try:
                st = os.stat(self.path)
            except FileNotFoundError:
                if self._inode is not None:
                    self._reset_memory()
                    self._inode, self._offset = None, 0
                return
            if st.st_ino != self._inode:
                self._reset_memory()
                self._inode, self._offset = st.st_ino, 0
            if st.st_size == self._offset:
                return
            with open(self.path, "rb") as fh:
                if self._offset == 0:
                    magic, dim = HEADER.unpack(fh.read(HEADER.size))
                    if magic != MAGIC:
                        raise ValueError(f"{self.path} is not a ragscope vector log")
                    self.dim = dim
                    self._reset_memory()
                    self._offset = HEADER.size
                fh.seek(self._offset)
                n = (st.st_size - self._offset) // self.record_size
                data = fh.read(n * self.record_size)
            self._apply(data, n)
            self._offset += n * self.record_size

    def _apply(self, data: bytes, n: int) -> None:
        """Apply n records in order: an add (re)places the id's row, a delete retires it."""
        if not n:
            return
        rec = np.frombuffer(data, dtype=_record(self.dim), count=n)
        adds = np.flatnonzero(rec["op"] == ADD)
        row = len(self._ids)
        self._grow(row + len(adds))
        self._buf[row:row + len(adds)] = rec["v"][adds]
        self._alive[row:row + len(adds)] = True
        ids = [raw.decode() for raw in rec["id"].tolist()]
        self._ids.extend(ids[i] for i in adds)
        if len(adds) == n and len(set(ids)) == n:  # the usual block: new or replaced ids
            old = [r for r in map(self._row.get, ids) if r is not None]
            self._alive[old] = False
            self._row.update(zip(ids, range(row, row + n)))
        else:  # deletes, or an id twice: in order
            for cid, op in zip(ids, rec["op"].tolist()):
                old = self._row.pop(cid, None)
                if old is not None:
                    self._alive[old] = False
                if op == ADD:
                    self._row[cid] = row
                    row += 1
        self._dead = int(len(self._ids) - np.count_nonzero(self._alive[:len(self._ids)]))

    def ids(self) -> set[str]:
        self.refresh()
        with self._guard:
            return set(self._row)

    def __len__(self) -> int:
        self.refresh()
        return len(self._row)

    def vectors(self, ids: Sequence[str]) -> dict[str, np.ndarray]:
        self.refresh()
        with self._guard:
            return {c: self._mat[self._row[c]].copy() for c in ids if c in self._row}

    def nearest(self, queries: np.ndarray, k: int) -> list[tuple[list[str], list[float]]]:
        """(ids, cosine distances) of the k nearest stored vectors of each query row, nearest
        first — every stored vector scored."""
        self.refresh()
        with self._guard:  # a consistent view; rows below `live` never change afterwards
            self._compact_memory()
            mat, ids = self._mat, self._ids
            live = len(mat)
        q = _unit(np.asarray(queries, dtype=np.float32).reshape(len(queries), -1))
        out: list[tuple[list[str], list[float]]] = []
        k = min(k, live)
        if k <= 0:
            return [([], []) for _ in range(len(q))]
        # scored outside the lock: concurrent searches run in parallel
        for start in range(0, len(q), SEARCH_BLOCK):
            scores = q[start:start + SEARCH_BLOCK] @ mat.T
            top = np.argpartition(-scores, k - 1, axis=1)[:, :k] if k < live else \
                np.tile(np.arange(live), (len(scores), 1))
            for qi, cand in zip(q[start:start + SEARCH_BLOCK], top):
                # scored again in float64 for the few kept: the same figures whether a
                # query came alone or in a batch (BLAS sums in another order per shape)
                exact = (mat[cand].astype(np.float64) @ qi.astype(np.float64))
                exact = exact.astype(np.float32)
                order = np.lexsort((cand, -exact))
                out.append(([ids[cand[i]] for i in order],
                            [float(np.float32(1.0) - exact[i]) for i in order]))
        return out

    def _compact_memory(self) -> None:
        """Drop replaced and deleted rows from the in-memory matrix (searches score live rows
        only)."""
        if self._dead == 0:
            return
        keep = np.flatnonzero(self._alive[:len(self._ids)])
        self._ids = [self._ids[i] for i in keep]
        self._buf = np.ascontiguousarray(self._buf[keep])
        self._alive = np.ones(len(keep), dtype=bool)
        self._row = {c: i for i, c in enumerate(self._ids)}
        self._dead = 0


def _record(dim: int) -> np.dtype:
    return np.dtype([("op", "S1"), ("id", f"S{ID_BYTES}"), ("v", "<f4", (dim,))])


def _id_bytes(cid: str) -> bytes:
    raw = str(cid).encode()
    if len(raw) > ID_BYTES or not raw:
        raise ValueError(f"chunk id {cid!r}: must be 1-{ID_BYTES} bytes")
    return raw


def _unit(v: np.ndarray) -> np.ndarray:
    if v.ndim != 2:
        raise ValueError("vectors must be a 2-d array")
    norms = np.linalg.norm(v, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    return (v / norms).astype(np.float32, copy=False)
