"""Sentence embeddings for chunks and queries.

`Embedder` is cheap to construct; the SentenceTransformer is loaded once, lazily and
thread-safely, from local files only (`resolve_model_path`). Vectors are float32 and
L2-normalised, so cosine similarity is a dot product."""
from __future__ import annotations

import logging
import os
import threading
from collections import OrderedDict
from typing import TYPE_CHECKING, Any, Sequence

import numpy as np

from backend.config import Settings, resolve_model_path
from backend.errors import ConfigError

if TYPE_CHECKING:  # pragma: no cover
    from sentence_transformers import SentenceTransformer

log = logging.getLogger(__name__)

_TORCH_THREADS_SET = False
_TORCH_THREADS_LOCK = threading.Lock()


def _configure_torch_threads(num_threads: int | None) -> None:
    """Torch's thread pools are process-wide: configure them once. On 2 cores one
    intra-op thread per core and a single inter-op thread avoid oversubscription."""
    global _TORCH_THREADS_SET
    with _TORCH_THREADS_LOCK:
        if _TORCH_THREADS_SET:
            return
        import torch

        n = num_threads or max(1, min(os.cpu_count() or 1, 8))
        torch.set_num_threads(n)
        try:
            torch.set_num_interop_threads(1)
        except RuntimeError:  # already set, or parallel work already started
            pass
        _TORCH_THREADS_SET = True


class Embedder:
    """Encodes texts with a local sentence-transformers model."""

    def __init__(
        self,
        model_name: str,
        *,
        device: str = "cpu",
        batch_size: int = 64,
        num_threads: int | None = None,
        query_cache_size: int = 256,
    ):
        if not model_name:
            raise ConfigError("embedding model name is empty")
        if batch_size < 1:
            raise ConfigError(f"embedding batch size must be >= 1, got {batch_size}")
        self.model_name = model_name
        self.device = device
        self.batch_size = batch_size
        self.num_threads = num_threads
        self.query_cache_size = max(0, query_cache_size)
        self._model: SentenceTransformer | None = None
        self._load_lock = threading.Lock()
        # HF fast tokenizers are not safe for concurrent calls ("Already borrowed"),
        # and on 2 cores parallel forward passes gain nothing: encode one call at a time.
        self._encode_lock = threading.Lock()
        self._cache: OrderedDict[str, np.ndarray] = OrderedDict()
        self._cache_lock = threading.Lock()

    @classmethod
    def from_settings(cls, settings: Settings, **kwargs: Any) -> "Embedder":
        return cls(
            settings.embedding_model,
            device=settings.embedding_device,
            batch_size=settings.embedding_batch_size,
            **kwargs,
        )

    # ---- model ---------------------------------------------------------------------
    def warm_up(self) -> None:
        """Load the model now (otherwise the first encode does)."""
        self._get_model()

    @property
    def is_loaded(self) -> bool:
        return self._model is not None

    def _get_model(self) -> "SentenceTransformer":
        model = self._model
        if model is not None:
            return model
        with self._load_lock:
            if self._model is None:
                _configure_torch_threads(self.num_threads)
                from sentence_transformers import SentenceTransformer

                path = resolve_model_path(self.model_name)
                log.info("loading embedding model %s from %s", self.model_name, path)
                try:
                    self._model = SentenceTransformer(
                        path, device=self.device, local_files_only=True
                    )
                except (OSError, ValueError) as exc:
                    raise ConfigError(
                        f"embedding model {self.model_name!r} cannot be loaded from local "
                        f"files ({path}): {exc}"
                    ) from exc
                self._model.eval()
            return self._model

    @property
    def dimension(self) -> int:
        model = self._get_model()
        getter = getattr(model, "get_embedding_dimension", None) or model.get_sentence_embedding_dimension
        dim = getter()
        if dim is None:  # pragma: no cover - every pooling model we use reports it
            dim = int(model.encode(["x"], convert_to_numpy=True).shape[1])
        return int(dim)

    @property
    def max_seq_length(self) -> int:
        return int(self._get_model().max_seq_length)

    # ---- encoding ------------------------------------------------------------------
    def encode(
        self,
        texts: Sequence[str],
        *,
        batch_size: int | None = None,
        progress: bool = False,
    ) -> np.ndarray:
        """Embeddings of `texts`, shape (len(texts), dimension), float32, unit length."""
        texts = list(texts)
        model = self._get_model()
        if not texts:
            return np.zeros((0, self.dimension), dtype=np.float32)
        with self._encode_lock:
            vecs = model.encode(
                texts,
                batch_size=batch_size or self.batch_size,
                show_progress_bar=progress,
                convert_to_numpy=True,
                normalize_embeddings=True,
            )
        return _normalise(np.asarray(vecs, dtype=np.float32))

    def encode_query(self, text: str) -> np.ndarray:
        """Embedding of one query, shape (dimension,). Recent queries are cached."""
        if self.query_cache_size:
            with self._cache_lock:
                hit = self._cache.get(text)
                if hit is not None:
                    self._cache.move_to_end(text)
                    return hit.copy()
        vec = self.encode([text])[0]
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
        return f"Embedder({self.model_name!r}, device={self.device!r}, loaded={self.is_loaded})"


def _normalise(vecs: np.ndarray) -> np.ndarray:
    """Re-normalise in float32 (the model normalises in its own precision); zero rows
    (empty input) stay zero instead of becoming NaN."""
    norms = np.linalg.norm(vecs, axis=1, keepdims=True)
    np.divide(vecs, norms, out=vecs, where=norms > 0)
    return vecs
