"""The reference backend: sentence-transformers on torch, fp32."""
from __future__ import annotations

import logging
import threading
from typing import Sequence

import numpy as np

from backend.embed.base import resolve_threads
from backend.errors import ConfigError

log = logging.getLogger(__name__)

_TORCH_THREADS_SET = False
_TORCH_THREADS_LOCK = threading.Lock()


def configure_torch_threads(num_threads: int | None) -> None:
    """Torch's thread pools are process-wide: configure them once. A single inter-op
    thread; intra-op threads as configured (docs/retrieval.md, "Threads")."""
    global _TORCH_THREADS_SET
    with _TORCH_THREADS_LOCK:
        if _TORCH_THREADS_SET:
            return
        import torch

        torch.set_num_threads(resolve_threads(num_threads))
        try:
            torch.set_num_interop_threads(1)
        except RuntimeError:  # already set, or parallel work already started
            pass
        _TORCH_THREADS_SET = True


class TorchEncoder:
    backend = "torch"

    def __init__(self, model_name: str, path: str, *, device: str = "cpu",
                 num_threads: int | None = None):
        self.model_name, self.path, self.device = model_name, path, device
        self.num_threads = num_threads
        self._model = None
        # HF fast tokenizers are not safe for concurrent calls ("Already borrowed"), and on
        # 2 cores parallel forward passes gain nothing: encode one call at a time.
        self._lock = threading.Lock()

    def load(self) -> None:
        configure_torch_threads(self.num_threads)
        from sentence_transformers import SentenceTransformer

        log.info("loading embedding model %s (torch) from %s", self.model_name, self.path)
        try:
            self._model = SentenceTransformer(self.path, device=self.device,
                                              local_files_only=True)
        except (OSError, ValueError) as exc:
            raise ConfigError(f"embedding model {self.model_name!r} cannot be loaded from "
                              f"local files ({self.path}): {exc}") from exc
        self._model.eval()

    @property
    def dimension(self) -> int:
        m = self._model
        getter = getattr(m, "get_embedding_dimension", None) or m.get_sentence_embedding_dimension
        dim = getter()
        if dim is None:  # pragma: no cover - every pooling model we use reports it
            dim = int(m.encode(["x"], convert_to_numpy=True).shape[1])
        return int(dim)

    @property
    def max_seq_length(self) -> int:
        return int(self._model.max_seq_length)

    def encode_passages(self, texts: Sequence[str], batch_size: int) -> np.ndarray:
        with self._lock:
            return np.asarray(self._model.encode(
                list(texts), batch_size=batch_size, show_progress_bar=False,
                convert_to_numpy=True, normalize_embeddings=True), dtype=np.float32)

    def encode_queries(self, texts: Sequence[str]) -> np.ndarray:
        return self.encode_passages(texts, 64)
