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

Storage: one append-only log of fixed-size records (`op`, chunk id, payload) beside Chroma's
files, written under the data dir's index write lock by `ChromaVectorIndex`. Readers of
other processes read only the bytes appended since their last look (an `os.stat` per search
when nothing changed); a rewrite (compaction, reset) gets a new inode and is read whole. A
torn last record (a writer killed mid-append) is ignored by readers and cut off by the next
writer. Vectors are kept unit-length (cosine), float32, in memory: 1.5 KiB per chunk.

Filter fields (format 2, magic `RSVEXAC2`): beside each vector the log keeps the few fields a
search filter tests (document id, doc type, membership tokens), so that a filtered search
decides which of the nearest chunks pass from memory instead of reading Chroma's metadata
(that read was most of a filtered search's cost: docs/benchmarks.md, "HTTP API capacity").
They are written as `M` records right after the chunk's `A` record in the same append, and
again whenever they change without a new vector (a document joins or leaves a collection:
`set_fields`, called by `ChromaVectorIndex.set_memberships`) — the log is the order of
events, so every reader sees a membership change in the same place as a re-ingest or a
delete. An `A` record forgets the chunk's fields until its `M` record follows, a `D` record
forgets both; a chunk whose fields are unknown (a reader between the two records, a
format-1 log written before this) is answered from Chroma's metadata, as before. Fields
longer than one payload continue over several records (`P` … `P` `M`, numbered). Memory:
one decoded copy per distinct field set (the chunks of one document share it) plus a
reference per chunk."""
from __future__ import annotations

import json
import os
import struct
import threading
from pathlib import Path
from typing import Iterable, Sequence

import numpy as np

MAGIC = b"RSVEXAC2"  # format 2: vectors and filter fields
MAGIC_V1 = b"RSVEXACT"  # format 1: vectors only (read as before; rewritten as format 2)
HEADER = struct.Struct("<8sI4x")  # magic, dimension
ID_BYTES = 64  # Chunk.id is String(64)
ADD, DELETE = b"A", b"D"
FIELDS, FIELDS_PART = b"M", b"P"  # a chunk's filter fields: last part / more parts follow
PART = struct.Struct("<H")  # part number at the start of a fields payload
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
        self.version = 2
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

    def _rewrite(self, dim: int, ids: Sequence[str], vecs: np.ndarray,
                 fields: dict[str, bytes] | None = None) -> None:
        """Replace the log by one holding exactly these vectors (and the known fields of
        these ids), always in format 2: written to a temporary file and renamed, so a reader
        sees the old log or the new one, never a part."""
        self.path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        tmp = self.path.with_suffix(".tmp")
        rec = np.zeros(len(ids), dtype=_record(dim))
        rec["op"] = ADD
        rec["id"] = [_id_bytes(c) for c in ids]
        rec["v"] = vecs
        known = [(c, fields[c]) for c in ids if fields and c in fields]
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "wb") as fh:
            fh.write(HEADER.pack(MAGIC, dim))
            fh.write(rec.tobytes())
            fh.write(_field_records(dim, known))
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
        self._fields: dict[str, bytes] = {}  # chunk id -> its encoded filter fields
        self._decoded: dict[bytes, dict] = {}  # encoded -> decoded (shared by equal sets)
        self._pending: tuple[str, int, bytes] | None = None  # fields continued: id, next part

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
    def add(self, ids: Sequence[str], vectors: np.ndarray,
            fields: Sequence[dict] | None = None) -> None:
        """Append these vectors; `fields` (one JSON-able dict per id: what filters test) go
        into the same append, so no reader sees the new vector with the old fields."""
        vecs = _unit(np.asarray(vectors, dtype=np.float32))
        if not self.exists():
            self.create(vecs.shape[1])
        self.refresh()
        if vecs.shape[1] != self.dim:
            raise ValueError(f"vectors have {vecs.shape[1]} dimensions, the index {self.dim}")
        if fields is not None and len(fields) != len(ids):
            raise ValueError(f"{len(ids)} ids but {len(fields)} field sets")
        extra = b""
        if fields is not None and self.version >= 2:
            extra = _field_records(self.dim, [(c, _encode(f)) for c, f in zip(ids, fields)])
        self._append(ADD, ids, vecs, extra)

    def set_fields(self, fields: dict[str, dict]) -> int:
        """Replace the filter fields of stored chunks (ids not stored are skipped; a format-1
        log keeps none: its readers ask Chroma). Returns the number of chunks written."""
        if not self.exists():
            return 0
        self.refresh()
        if self.version < 2:
            return 0
        known = [(c, _encode(f)) for c, f in fields.items() if c in self._row]
        if known:
            self._write(_field_records(self.dim, known))
            self._maybe_compact()  # repeated membership changes grow the log too
        return len(known)

    def delete(self, ids: Iterable[str]) -> None:
        if not self.exists():
            return
        self.refresh()
        gone = [c for c in dict.fromkeys(ids) if c in self._row]
        if gone:
            self._append(DELETE, gone, np.zeros((len(gone), self.dim), dtype=np.float32))
        self._maybe_compact()

    def _append(self, op: bytes, ids: Sequence[str], vecs: np.ndarray,
                extra: bytes = b"") -> None:
        rec = np.zeros(len(ids), dtype=_record(self.dim))
        rec["op"] = op
        rec["id"] = [_id_bytes(c) for c in ids]
        rec["v"] = vecs
        self._write(rec.tobytes() + extra)

    def _write(self, data: bytes) -> None:
        """Append whole records in one write (cutting off a torn record first)."""
        with open(self.path, "r+b") as fh:
            end = fh.seek(0, os.SEEK_END)
            whole = HEADER.size + (end - HEADER.size) // self.record_size * self.record_size
            if whole != end:  # a torn record left by a killed writer
                fh.truncate(whole)
                fh.seek(whole)
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        self.refresh()

    def _maybe_compact(self) -> None:
        records = (self.path.stat().st_size - HEADER.size) // self.record_size
        live = len(self._row) + len(self._fields)  # a vector and (usually) one fields record
        if records >= COMPACT_MIN_RECORDS and records >= COMPACT_RATIO * max(live, 1):
            with self._guard:
                self._compact_memory()
                ids, mat, fields = list(self._ids), self._mat.copy(), dict(self._fields)
            self._rewrite(self.dim, ids, mat, fields)

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
                    if magic not in (MAGIC, MAGIC_V1):
                        raise ValueError(f"{self.path} is not a ragscope vector log")
                    self.dim, self.version = dim, 1 if magic == MAGIC_V1 else 2
                    self._reset_memory()
                    self._offset = HEADER.size
                fh.seek(self._offset)
                n = (st.st_size - self._offset) // self.record_size
                data = fh.read(n * self.record_size)
            self._apply(data, n)
            self._offset += n * self.record_size

    def _apply(self, data: bytes, n: int) -> None:
        """Apply n records in order, a run of equal ops at a time: an add (re)places the id's
        row and forgets its fields, a delete retires both, a fields record sets them."""
        if not n:
            return
        rec = np.frombuffer(data, dtype=_record(self.dim), count=n)
        ops = rec["op"]
        bad = ~np.isin(ops, [ADD, DELETE, FIELDS, FIELDS_PART])
        if bad.any():
            at = int(np.argmax(bad))
            raise ValueError(f"{self.path}: unknown record {bytes(ops[at])!r} at offset "
                             f"{self._offset + at * self.record_size}")
        cuts = [0, *(np.flatnonzero(ops[1:] != ops[:-1]) + 1).tolist(), n]
        for a, b in zip(cuts, cuts[1:]):
            if ops[a] == ADD:
                self._apply_adds(rec[a:b])
            elif ops[a] == DELETE:
                self._apply_deletes(raw.decode() for raw in rec["id"][a:b].tolist())
            else:
                self._apply_fields(np.frombuffer(data, dtype=_fields_record(self.dim),
                                                 count=n)[a:b])
        self._dead = int(len(self._ids) - np.count_nonzero(self._alive[:len(self._ids)]))

    def _apply_adds(self, rec: np.ndarray) -> None:
        n = len(rec)
        row = len(self._ids)
        self._grow(row + n)
        self._buf[row:row + n] = rec["v"]
        self._alive[row:row + n] = True
        ids = [raw.decode() for raw in rec["id"].tolist()]
        self._ids.extend(ids)
        self._pending = None
        if self._fields:
            for cid in ids:
                self._fields.pop(cid, None)
        if len(set(ids)) == n:  # the usual block: new or replaced ids
            old = [r for r in map(self._row.get, ids) if r is not None]
            self._alive[old] = False
            self._row.update(zip(ids, range(row, row + n)))
            return
        for cid in ids:  # an id twice: in order
            old = self._row.get(cid)
            if old is not None:
                self._alive[old] = False
            self._row[cid] = row
            row += 1

    def _apply_deletes(self, ids: Iterable[str]) -> None:
        self._pending = None
        for cid in ids:
            old = self._row.pop(cid, None)
            if old is not None:
                self._alive[old] = False
            self._fields.pop(cid, None)

    def _apply_fields(self, rec: np.ndarray) -> None:
        """Fields records, possibly continued over several (`P`… then `M`, numbered from 0):
        a part that does not continue the chain before it (left by a writer killed between
        records) starts over or is dropped."""
        for op, raw_id, payload in zip(rec["op"].tolist(), rec["id"].tolist(),
                                       rec["p"].tolist()):
            cid, (part,), body = raw_id.decode(), PART.unpack_from(payload), payload[PART.size:]
            if part:
                p = self._pending
                if p is None or p[0] != cid or p[1] != part:
                    self._pending = None
                    continue
                body = p[2] + body
            self._pending = None
            if op == FIELDS_PART:
                self._pending = (cid, part + 1, body)
            elif cid in self._row:
                if body not in self._decoded:
                    self._decoded[body] = json.loads(body)
                self._fields[cid] = body

    def ids(self) -> set[str]:
        self.refresh()
        with self._guard:
            return set(self._row)

    def fields(self, ids: Iterable[str]) -> dict[str, dict]:
        """The filter fields of these chunks, where the log holds them (shared dicts: do not
        change them). Missing: unknown ids and chunks whose fields are not (yet) known."""
        self.refresh()
        with self._guard:
            got = ((c, self._fields.get(c)) for c in ids)
            return {c: self._decoded[raw] for c, raw in got if raw is not None}

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


def _fields_record(dim: int) -> np.dtype:
    """The same record read as a fields record: the payload as bytes (trailing NULs, the
    padding, are dropped by numpy; JSON never ends in one)."""
    return np.dtype([("op", "S1"), ("id", f"S{ID_BYTES}"), ("p", f"S{4 * dim}")])


def _encode(fields: dict) -> bytes:
    return json.dumps(fields, separators=(",", ":"), sort_keys=True,
                      ensure_ascii=False).encode()


def _field_records(dim: int, items: Sequence[tuple[str, bytes]]) -> bytes:
    """Fields records for (id, encoded fields) pairs: one record each when the fields fit
    into a payload, else numbered `P` records and a last `M`."""
    room = 4 * dim - PART.size
    if room < 1:
        raise ValueError(f"vectors of {dim} dimensions leave no room for filter fields")
    rows: list[tuple[bytes, bytes, bytes]] = []
    for cid, body in items:
        parts = [body[i:i + room] for i in range(0, len(body), room)] or [b""]
        if len(parts) > 0xFFFF:
            raise ValueError(f"chunk {cid!r}: {len(body)} bytes of filter fields is too much")
        for j, part in enumerate(parts):
            rows.append((FIELDS if j == len(parts) - 1 else FIELDS_PART, _id_bytes(cid),
                         PART.pack(j) + part))
    rec = np.zeros(len(rows), dtype=_fields_record(dim))
    if rows:
        rec["op"], rec["id"], rec["p"] = zip(*rows)
    return rec.tobytes()


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
