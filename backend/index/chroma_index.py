"""VectorIndex on Chroma: the embedded persistent client under data_dir, or a Chroma
server (`chroma run`) when `chroma_url` is set.

The collection never gets an embedding function (`embedding_function=None`) and is never
queried by query text: both would make Chroma fetch its default ONNX model. Vectors
come from `backend.embedding.Embedder`.

HNSW: Chroma's defaults (ef_construction=ef_search=100, M=16) gave recall@10 of 0.86
against exact search on 3,000 random 384-d vectors; ef 200 / M 32 gave 0.996
(`tests/test_index_contract.py::test_chroma_recall`)."""
from __future__ import annotations

import logging
import threading
from typing import Any, Callable, Sequence, TypeVar
from urllib.parse import urlparse

import numpy as np

from backend.config import Settings
from backend.errors import BackendUnavailable, ConfigError
from backend.index.base import IndexedChunk, IndexFilter, IndexHit

log = logging.getLogger(__name__)

T = TypeVar("T")
_PAGE = 5000  # ids() page size


def parse_chroma_url(url: str) -> tuple[str, int, bool]:
    """`http://host:port` → (host, port, ssl). The port defaults to 8000 (http) / 443 (https)."""
    parsed = urlparse(url if "://" in url else f"http://{url}")
    if parsed.scheme not in ("http", "https") or not parsed.hostname:
        raise ConfigError(f"chroma_url must look like http://host:port, got {url!r}")
    ssl = parsed.scheme == "https"
    try:
        port = parsed.port or (443 if ssl else 8000)
    except ValueError as exc:
        raise ConfigError(f"chroma_url has an invalid port: {url!r}") from exc
    return parsed.hostname, port, ssl


class ChromaVectorIndex:
    """Chunk vectors in one Chroma collection, cosine space, with per-chunk metadata
    document_id, version_id and doc_type (used by filters)."""

    name = "chroma"

    def __init__(self, settings: Settings):
        import chromadb
        from chromadb.config import Settings as ChromaSettings

        self.settings = settings
        self.collection_name = settings.chroma_collection
        self.hnsw = {
            "space": "cosine",
            "ef_construction": settings.hnsw_ef_construction,
            "ef_search": settings.hnsw_ef_search,
            "max_neighbors": settings.hnsw_m,
        }
        chroma_settings = ChromaSettings(anonymized_telemetry=False, allow_reset=False)
        try:
            if settings.chroma_url:
                host, port, ssl = parse_chroma_url(settings.chroma_url)
                self.location = settings.chroma_url
                self._client = chromadb.HttpClient(
                    host=host, port=port, ssl=ssl, settings=chroma_settings
                )
            else:
                path = settings.chroma_dir
                path.mkdir(parents=True, exist_ok=True)
                self.location = str(path)
                self._client = chromadb.PersistentClient(path=str(path), settings=chroma_settings)
        except ConfigError:
            raise
        except Exception as exc:  # connection refused, bad server, ...
            raise BackendUnavailable(f"Chroma at {settings.chroma_url or settings.chroma_dir}: {exc}") from exc
        self._lock = threading.Lock()
        self._collection = self._open_collection()
        try:
            self._max_batch = max(1, int(self._client.get_max_batch_size()))
        except Exception:  # pragma: no cover - old servers
            self._max_batch = 1000

    # ---- collection handling ---------------------------------------------------------
    def _open_collection(self) -> Any:
        try:
            col = self._client.get_or_create_collection(
                self.collection_name,
                configuration={"hnsw": dict(self.hnsw)},
                embedding_function=None,
            )
        except Exception as exc:
            raise BackendUnavailable(f"Chroma collection {self.collection_name!r}: {exc}") from exc
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
            try:
                col.modify(configuration={"hnsw": {"ef_search": self.hnsw["ef_search"]}})
            except Exception as exc:  # pragma: no cover - depends on server version
                log.warning("could not update ef_search of %s: %s", self.collection_name, exc)

    def _call(self, fn: Callable[[Any], T]) -> T:
        """Run `fn(collection)`; if another client object reset (dropped and recreated)
        the collection meanwhile, reopen it once and retry."""
        from chromadb.errors import NotFoundError

        col = self._collection
        try:
            return fn(col)
        except NotFoundError:
            with self._lock:
                if self._collection is col:
                    self._collection = self._open_collection()
            return fn(self._collection)

    @property
    def configuration(self) -> dict[str, Any]:
        """The collection's HNSW configuration as Chroma reports it."""
        return dict((self._collection.configuration_json or {}).get("hnsw") or {})

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
        for start in range(0, len(order), self._max_batch):
            idx = order[start : start + self._max_batch]
            batch = [chunks[i] for i in idx]
            self._call(
                lambda col, batch=batch, idx=idx: col.upsert(
                    ids=[c.chunk_id for c in batch],
                    embeddings=vecs[idx],
                    metadatas=[_metadata(c) for c in batch],
                )
            )

    def delete(self, chunk_ids: Sequence[str]) -> None:
        ids = list(dict.fromkeys(chunk_ids))
        for start in range(0, len(ids), self._max_batch):
            part = ids[start : start + self._max_batch]
            self._call(lambda col, part=part: col.delete(ids=part))

    def search(self, embedding: Sequence[float], k: int, flt: IndexFilter | None = None) -> list[IndexHit]:
        if k <= 0:
            return []
        where = _where(flt)
        if where is _NOTHING:
            return []
        query = np.asarray(embedding, dtype=np.float32).reshape(1, -1)
        kwargs: dict[str, Any] = {"query_embeddings": query, "n_results": k, "include": ["distances"]}
        if where:
            kwargs["where"] = where
        res = self._call(lambda col: col.query(**kwargs))
        ids = (res.get("ids") or [[]])[0]
        dists = (res.get("distances") or [[]])[0]
        return [
            IndexHit(chunk_id=cid, score=1.0 - float(d), rank=rank)
            for rank, (cid, d) in enumerate(zip(ids, dists), start=1)
        ]

    def ids(self) -> set[str]:
        out: set[str] = set()
        offset = 0
        while True:
            res = self._call(lambda col: col.get(include=[], limit=_PAGE, offset=offset))
            page = res.get("ids") or []
            out.update(page)
            if len(page) < _PAGE:
                return out
            offset += _PAGE

    def count(self) -> int:
        return int(self._call(lambda col: col.count()))

    def reset(self) -> None:
        from chromadb.errors import NotFoundError

        with self._lock:
            try:
                self._client.delete_collection(self.collection_name)
            except (NotFoundError, ValueError):
                pass
            self._collection = self._open_collection()

    # ---- extras (not in the protocol) -----------------------------------------------
    def get_embeddings(self, chunk_ids: Sequence[str]) -> dict[str, np.ndarray]:
        """Stored vectors of the given chunks (missing ids are left out); e.g. for MMR."""
        ids = list(dict.fromkeys(chunk_ids))
        out: dict[str, np.ndarray] = {}
        for start in range(0, len(ids), self._max_batch):
            part = ids[start : start + self._max_batch]
            res = self._call(lambda col, part=part: col.get(ids=part, include=["embeddings"]))
            embs = res.get("embeddings")
            if embs is None:
                continue
            for cid, emb in zip(res["ids"], embs):
                out[cid] = np.asarray(emb, dtype=np.float32)
        return out

    def heartbeat(self) -> bool:
        try:
            self._client.heartbeat()
            return True
        except Exception:
            return False

    def __repr__(self) -> str:
        return f"ChromaVectorIndex({self.location!r}, collection={self.collection_name!r})"


_NOTHING: dict[str, Any] = {"__nothing__": True}


def _metadata(chunk: IndexedChunk) -> dict[str, Any]:
    return {
        "document_id": int(chunk.document_id),
        "version_id": int(chunk.version_id),
        "doc_type": chunk.doc_type or "",
        "language": chunk.language or "",
    }


def _where(flt: IndexFilter | None) -> dict[str, Any] | None:
    """IndexFilter → Chroma `where`; `_NOTHING` when a filter list is empty."""
    if flt is None:
        return None
    clauses: list[dict[str, Any]] = []
    if flt.document_ids is not None:
        ids = sorted({int(i) for i in flt.document_ids})
        if not ids:
            return _NOTHING
        clauses.append({"document_id": {"$in": ids}})
    if flt.doc_types is not None:
        types = sorted({str(t) for t in flt.doc_types})
        if not types:
            return _NOTHING
        clauses.append({"doc_type": {"$in": types}})
    if not clauses:
        return None
    return clauses[0] if len(clauses) == 1 else {"$and": clauses}
