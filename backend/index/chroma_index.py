"""VectorIndex on Chroma: the embedded persistent client under data_dir, or a Chroma
server (`chroma run`) when `chroma_url` is set.

The collection never gets an embedding function (`embedding_function=None`) and is never
queried by query text: both would make Chroma fetch its default ONNX model. Vectors
come from `backend.embed.embedder.Embedder`.

Several processes (dashboard, scheduler, watcher, CLI) share one data dir. The embedded
client keeps the HNSW graph in memory and persists it from there, so every write holds the
data dir's index write lock and reopens a client older than the last commit, and readers
reopen when the generation moved (`EmbeddedSource`, `backend.index.writelock`).

Nearest neighbours: with the embedded client (and `vector_search=exact`, the default) they are
found by exact search over every stored vector (`backend.index.exact_vectors`, written beside
Chroma under the same lock): Chroma's HNSW graph, built incrementally, loses chunks when a
large family of near-duplicates arrives after them (issue 21; docs/retrieval.md, "Why vector
search is exact"). Chroma keeps storing vectors and metadata and answers `where` filters.

HNSW (a Chroma server, `vector_search=hnsw`, and filtered searches that Chroma answers):
Chroma's defaults (ef_construction=ef_search=100, M=16) gave recall@10 of 0.86 against exact
search on 3,000 random 384-d vectors; ef 200 / M 32 gave 0.996
(`tests/test_index_contract.py::test_chroma_recall`); docs/benchmarks.md, "Vector recall"."""
from __future__ import annotations

import contextlib
import logging
import threading
import time
from typing import Any, Callable, Mapping, Sequence, TypeVar

import numpy as np

from backend.batching import CoalescingBatcher
from backend.config import Settings
from backend.errors import BackendUnavailable, ConfigError
from backend.index.base import IndexedChunk
from backend.index.chroma_filters import MEMBERSHIPS, _filter_fields, _metadata
from backend.index.exact_vectors import ExactVectors
from backend.index.chroma_clients import (
    ClientSource,
    EmbeddedSource,
    ServerSource,
    chroma_settings,
    parse_chroma_url,
)
from backend.index.chroma_search import ChromaSearch
from backend.index.writelock import IndexWriteLock

log = logging.getLogger(__name__)

T = TypeVar("T")
_PAGE = 5000  # ids() page size


class ChromaVectorIndex(ChromaSearch):
    """Chunk vectors in one Chroma collection, cosine space, with per-chunk metadata
    document_id, version_id, doc_type and memberships (used by filters). Every write holds
    the data dir's index write lock (`backend.index.writelock`); the search methods are
    `ChromaSearch`'s (backend/index/chroma_search.py)."""

    name = "chroma"

    def __init__(self, settings: Settings, lock: IndexWriteLock | None = None):
        import chromadb

        self.settings = settings
        self.lock = lock or IndexWriteLock.for_dir(settings.data_dir,
                                                   settings.index_lock_timeout_s)
        self.collection_name = settings.chroma_collection
        self.hnsw = {
            "space": "cosine",
            "ef_construction": settings.hnsw_ef_construction,
            "ef_search": settings.hnsw_ef_search,
            "max_neighbors": settings.hnsw_m,
        }
        try:
            if settings.chroma_url:
                host, port, ssl = parse_chroma_url(settings.chroma_url)
                self.location = settings.chroma_url
                self._source: ClientSource = ServerSource(chromadb.HttpClient(
                    host=host, port=port, ssl=ssl, settings=chroma_settings()))
            else:
                self.location = str(settings.chroma_dir)
                self._source = EmbeddedSource.for_path(settings.chroma_dir, self.lock,
                                                        settings.index_refresh_s)
        except ConfigError:
            raise
        except Exception as exc:  # connection refused, bad server, ...
            raise BackendUnavailable(f"Chroma at {settings.chroma_url or settings.chroma_dir}: {exc}") from exc
        self._lock = threading.Lock()
        # Concurrent searches (API threads) share Chroma reads: nearest-neighbour queries
        # without a `where` and metadata reads of candidate pages are coalesced into one
        # call each (no wait when idle; docs/benchmarks.md, "HTTP API under load").
        self._nearest_calls = CoalescingBatcher(self._nearest_batch, max_batch=32)
        self._metadata_calls = CoalescingBatcher(self._metadata_batch, max_batch=32)
        self._collection: Any = None
        self._epoch = -1
        self._ef_search_outdated = False
        self._closed = False
        self.exact: ExactVectors | None = None
        try:
            with self._open_source().reading() as client:
                col = self._collection_of(client, check=True)
                self.exact = self._exact_vectors(col)
                try:
                    self._max_batch = max(1, int(client.get_max_batch_size()))
                except Exception:  # pragma: no cover - old servers
                    self._max_batch = 1000
            if self._ef_search_outdated:
                self._update_ef_search()
        except BaseException:
            self.close()  # the caller never gets the object to close
            raise

    def _exact_vectors(self, col: Any) -> ExactVectors | None:
        """The exact-search log of this collection, or None (HNSW search): a Chroma server,
        `vector_search=hnsw`, or a collection filled before the log existed (it answers by
        HNSW until `reindex` rebuilds it, which the index guardrails ask for)."""
        s = self.settings
        if s.chroma_url or s.vector_search != "exact":
            return None
        exact = ExactVectors(self._log_path)
        if exact.exists() or not col.count():
            return exact
        log.warning("Chroma collection %s has no exact-search log (built before it existed): "
                    "searching its HNSW graph; run `python -m backend reindex`",
                    self.collection_name)
        return None

    def _adopt_exact_log(self) -> None:
        """An index opened before its exact-search log existed (a data dir from before it)
        switches to exact search as soon as another process's `reindex` has written one."""
        if self.exact is None and self.search_mode_wanted == "exact" \
                and self._log_path.exists():
            self.exact = ExactVectors(self._log_path)

    @property
    def _log_path(self):
        """Where this collection's exact-search log lives (`<data_dir>/vectors/`)."""
        return self.settings.data_dir / "vectors" / f"{self.collection_name}.log"

    @property
    def search_mode_wanted(self) -> str:
        """How the settings want nearest neighbours found ("exact" needs the embedded
        client); the index guardrails compare it with what the index was built for."""
        return "hnsw" if self.settings.chroma_url or self.settings.vector_search != "exact" \
            else "exact"

    @property
    def search_mode(self) -> str:
        """"exact" or "hnsw": how unfiltered nearest neighbours are found."""
        return "exact" if self.exact is not None else "hnsw"

    def close(self) -> None:
        """Give back the client: the embedded client of a directory is closed when its last
        index object closes (`EmbeddedSource.release`). Closing twice is harmless; any use
        afterwards raises BackendUnavailable."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
            self._collection = None
        self._source.release()

    def _open_source(self) -> ClientSource:
        if self._closed:
            raise BackendUnavailable(f"{self!r} was closed")
        return self._source

    # ---- collection handling ---------------------------------------------------------
    def _open_collection(self, client: Any) -> Any:
        try:
            return client.get_or_create_collection(
                self.collection_name,
                configuration={"hnsw": dict(self.hnsw)},
                embedding_function=None,
            )
        except Exception as exc:
            raise BackendUnavailable(f"Chroma collection {self.collection_name!r}: {exc}") from exc

    def _collection_of(self, client: Any, *, check: bool = False) -> Any:
        """The collection handle for the source's current client (fetched again after a
        reopen)."""
        with self._lock:
            if self._collection is None or self._epoch != self._source.epoch:
                self._collection = self._open_collection(client)
                self._epoch = self._source.epoch
                check = True
            col = self._collection
        if check:
            self._check_configuration(col)
        return col

    def _check_configuration(self, col: Any) -> None:
        """An existing collection keeps its build parameters; ef_search can be changed
        in place, the rest only by `reset()` (reindex)."""
        current = (col.configuration_json or {}).get("hnsw") or {}
        if not current:
            return
        if current.get("space") not in (None, "cosine"):
            log.warning("Chroma collection %s uses space %r, not cosine: run reindex",
                        self.collection_name, current.get("space"))
        for key in ("ef_construction", "max_neighbors"):
            if current.get(key) not in (None, self.hnsw[key]):
                log.warning("Chroma collection %s has %s=%s (settings: %s); reindex to apply",
                            self.collection_name, key, current.get(key), self.hnsw[key])
        if current.get("ef_search") not in (None, self.hnsw["ef_search"]):
            self._ef_search_outdated = True

    def _update_ef_search(self, attempts: int = 5) -> None:
        """ef_search can be changed in place (a write: under the lock). Chroma's own SQLite
        may be busy for a moment ("database is locked", seen on a loaded machine): retried
        with a growing pause before the setting is left as it was, with a warning."""
        self._ef_search_outdated = False
        for attempt in range(attempts):
            try:
                self._write("update ef_search", lambda col: col.modify(
                    configuration={"hnsw": {"ef_search": self.hnsw["ef_search"]}}))
                return
            except Exception as exc:  # pragma: no cover - depends on server version and load
                if "locked" in str(exc) and attempt + 1 < attempts:
                    time.sleep(0.1 * 2 ** attempt)
                    continue
                log.warning("could not update ef_search of %s: %s", self.collection_name, exc)
                return

    def _read(self, fn: Callable[[Any], T]) -> T:
        with self._open_source().reading() as client:
            return self._run(client, fn)

    def _write(self, purpose: str, fn: Callable[[Any], T]) -> T:
        with self.lock.hold(purpose), self._open_source().writing() as client:
            return self._run(client, fn)

    def _run(self, client: Any, fn: Callable[[Any], T]) -> T:
        """Run `fn(collection)`; if the collection was dropped and recreated meanwhile
        (reset by another index object), fetch it again once and retry."""
        from chromadb.errors import NotFoundError

        col = self._collection_of(client)
        try:
            return fn(col)
        except NotFoundError:
            with self._lock:
                if self._collection is col:
                    self._collection = None
            return fn(self._collection_of(client))

    @property
    def configuration(self) -> dict[str, Any]:
        """The collection's HNSW configuration as Chroma reports it."""
        col = self._read(lambda col: col)
        return {**((col.configuration_json or {}).get("hnsw") or {}), "search": self.search_mode}

    # ---- VectorIndex -----------------------------------------------------------------
    def add(self, chunks: Sequence[IndexedChunk], embeddings: Sequence[Sequence[float]]) -> None:
        if len(chunks) != len(embeddings):
            raise ValueError(f"{len(chunks)} chunks but {len(embeddings)} embeddings")
        if not chunks:
            return
        vecs = np.asarray(embeddings, dtype=np.float32)
        if vecs.ndim != 2:
            raise ValueError("embeddings must be a 2-d array-like")
        # Last occurrence wins, as in a sequence of upserts (Chroma rejects duplicate ids).
        last = {c.chunk_id: i for i, c in enumerate(chunks)}
        order = sorted(last.values())
        with self.lock.hold("add vectors"):
            for start in range(0, len(order), self._max_batch):
                idx = order[start : start + self._max_batch]
                batch = [chunks[i] for i in idx]
                self._write("add vectors", lambda col, batch=batch, idx=idx: col.upsert(
                    ids=[c.chunk_id for c in batch],
                    embeddings=vecs[idx],
                    metadatas=[_metadata(c) for c in batch],
                ))
                if self.exact is not None:
                    self.exact.add([c.chunk_id for c in batch], vecs[idx],
                                   [_filter_fields(_metadata(c)) for c in batch])

    def delete(self, chunk_ids: Sequence[str]) -> None:
        ids = list(dict.fromkeys(chunk_ids))
        if not ids:
            return
        with self.lock.hold("delete vectors"):
            for start in range(0, len(ids), self._max_batch):
                part = ids[start : start + self._max_batch]
                self._write("delete vectors", lambda col, part=part: col.delete(ids=part))
                if self.exact is not None:
                    self.exact.delete(part)

    def set_memberships(self, tokens: Mapping[str, Sequence[str]]) -> None:
        """Replace the membership tokens of stored chunks in place (no re-embedding);
        ids not in the collection are skipped (Chroma's update would refuse the batch)."""
        with self.lock.hold("update memberships"):
            have = self.get_metadata(list(tokens))
            ids = [cid for cid in tokens if cid in have]
            for start in range(0, len(ids), self._max_batch):
                part = ids[start:start + self._max_batch]
                metas = [{MEMBERSHIPS: sorted(set(tokens[c])) or None} for c in part]
                self._write("update memberships", lambda col, part=part, metas=metas:
                            col.update(ids=part, metadatas=metas))
                if self.exact is not None:  # after Chroma: the log is what searches read
                    self.exact.set_fields({c: _filter_fields({**have[c], **m})
                                           for c, m in zip(part, metas)})

    def memberships(self, chunk_ids: Sequence[str]) -> dict[str, set[str]]:
        """Tokens per chunk in Chroma's metadata (what Chroma's `where` reads); the log's copy
        (what filtered searches read first) is `memberships_in_log`, and `check` compares
        both with the store."""
        return {cid: set(m.get(MEMBERSHIPS) or []) for cid, m in
                self.get_metadata(chunk_ids).items()}

    def memberships_in_log(self, chunk_ids: Sequence[str]) -> dict[str, set[str]]:
        """The tokens the exact-search log holds for these chunks (where it holds fields)."""
        if self.exact is None:
            return {}
        return {cid: set(f.get(MEMBERSHIPS) or []) for cid, f in
                self.exact.fields(chunk_ids).items()}

    def get_metadata(self, chunk_ids: Sequence[str]) -> dict[str, dict[str, Any]]:
        """Stored metadata of the given chunks (missing ids are left out)."""
        ids = list(dict.fromkeys(chunk_ids))
        out: dict[str, dict[str, Any]] = {}
        for start in range(0, len(ids), self._max_batch):
            part = ids[start:start + self._max_batch]
            res = self._read(lambda col, part=part: col.get(ids=part, include=["metadatas"]))
            for cid, meta in zip(res.get("ids") or [], res.get("metadatas") or []):
                out[cid] = dict(meta or {})
        return out

    def ids(self) -> set[str]:
        """Ids in Chroma or in the exact-search log (one missing from either is found by the
        read-back of `check`: not found by its own vector, or unreadable)."""
        out: set[str] = set(self.exact.ids()) if self.exact is not None else set()
        offset = 0
        while True:
            res = self._read(lambda col: col.get(include=[], limit=_PAGE, offset=offset))
            page = res.get("ids") or []
            out.update(page)
            if len(page) < _PAGE:
                return out
            offset += _PAGE

    def count(self) -> int:
        return int(self._read(lambda col: col.count()))

    def reset(self) -> None:
        from chromadb.errors import NotFoundError

        with self.lock.hold("reset the vector index"):
            with self._open_source().writing() as client:
                try:
                    client.delete_collection(self.collection_name)
                except (NotFoundError, ValueError):
                    pass
                with self._lock:
                    self._collection = None
                self._collection_of(client)
            if self.search_mode_wanted == "exact":
                self.exact = ExactVectors(self._log_path)
                self.exact.remove()  # created by the first add

    def drop(self) -> None:
        """Delete the collection (a server outlives tests; nothing is recreated)."""
        from chromadb.errors import NotFoundError

        with self.lock.hold("drop the vector index"), self._open_source().writing() as client:
            with contextlib.suppress(NotFoundError, ValueError):
                client.delete_collection(self.collection_name)
            with self._lock:
                self._collection = None
            if self.exact is not None:
                self.exact.remove()

    def get_embeddings(self, chunk_ids: Sequence[str]) -> dict[str, np.ndarray]:
        """Stored vectors of the given chunks (missing ids are left out); e.g. for MMR and
        for `check`, which reads vectors back."""
        ids = list(dict.fromkeys(chunk_ids))
        out: dict[str, np.ndarray] = {}
        for start in range(0, len(ids), self._max_batch):
            part = ids[start : start + self._max_batch]
            res = self._read(lambda col, part=part: col.get(ids=part, include=["embeddings"]))
            embs = res.get("embeddings")
            if embs is None:
                continue
            for cid, emb in zip(res["ids"], embs):
                out[cid] = np.asarray(emb, dtype=np.float32)
        return out

    # ---- extras (not in the protocol) -----------------------------------------------
    def heartbeat(self) -> bool:
        try:
            with self._open_source().reading() as client:
                client.heartbeat()
            return True
        except Exception:
            return False

    def __repr__(self) -> str:
        return f"ChromaVectorIndex({self.location!r}, collection={self.collection_name!r})"
