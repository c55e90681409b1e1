"""ONNX Runtime backends (`onnx`, `onnx-int8`): the exported graph (`onnx_export`) on the CPU,
tokenised with the model's own tokenizer.json by the `tokenizers` package. Neither torch nor
transformers is imported once the export exists.

Batches (ingestion) run data-parallel: `num_threads` one-thread sessions, each encoding its
share of the texts in its own worker thread (ONNX Runtime releases the GIL) — measured 1.2-1.3×
the throughput of one session with as many intra-op threads, which synchronise at every
operator (docs/retrieval.md, "Threads"). Single queries run on their own one-thread session
with their own lock, so a search never waits behind an ingest batch and one short query does
not pay thread hand-offs. Each text runs alone (`MICRO_BATCH` = 1): int8 dynamic quantisation
computes the activation scale over the whole input of a run, so texts run together change
each other's vectors (cosine 0.989 between a text alone and in a batch of six); alone, a
vector depends on its text only — whichever session encodes it. It is also the fastest: no
padding, better cache use (1-2 texts per run measured ~15 % faster than 64)."""
from __future__ import annotations

import logging
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Sequence

import numpy as np

from backend.embed.base import resolve_threads
from backend.embed.onnx_export import ensure_export
from backend.embed.onnx_session import MICRO_BATCH, OnnxExport, Runner

log = logging.getLogger(__name__)


class OnnxEncoder:
    def __init__(self, model_name: str, path: str, *, cache_dir: Path, variant: str,
                 num_threads: int | None = None):
        self.model_name, self.path, self.cache_dir = model_name, path, Path(cache_dir)
        self.variant = variant
        self.backend = "onnx-int8" if variant == "int8" else "onnx"
        self.num_threads = num_threads
        self.export: OnnxExport | None = None
        self._workers: list[Runner] = []
        self._pool: ThreadPoolExecutor | None = None
        self._query: Runner | None = None
        self._batch_lock, self._query_lock = threading.Lock(), threading.Lock()

    @classmethod
    def from_export(cls, export: OnnxExport, *, num_threads: int | None = None
                    ) -> "OnnxEncoder":
        enc = cls(export.manifest["model"], export.manifest["source"],
                  cache_dir=export.folder.parent, variant=export.manifest["variant"],
                  num_threads=num_threads)
        enc._open(export)
        return enc

    def load(self) -> None:
        self._open(ensure_export(self.model_name, self.path, self.cache_dir, self.variant))

    def _open(self, export: OnnxExport) -> None:
        log.info("loading embedding model %s (%s) from %s", self.model_name, self.backend,
                 export.folder)
        self.export = export
        # one session first (it tells the dimension); the others when a batch needs them
        self._workers = [Runner(export, 1)]

    @property
    def dimension(self) -> int:
        return self._workers[0].dimension

    @property
    def max_seq_length(self) -> int:
        return self.export.max_seq_length

    def encode_passages(self, texts: Sequence[str], batch_size: int) -> np.ndarray:
        """Passages split over the one-thread worker sessions (longest first, dealt out in
        turn, so the shares cost about the same), encoded in parallel."""
        texts = list(texts)
        n = min(resolve_threads(self.num_threads), len(texts))
        with self._batch_lock:
            if n <= 1:
                return self._workers[0].run(texts, MICRO_BATCH)
            while len(self._workers) < n:
                self._workers.append(Runner(self.export, 1))
            if self._pool is None:
                self._pool = ThreadPoolExecutor(resolve_threads(self.num_threads),
                                                thread_name_prefix="onnx-encode")
            order = sorted(range(len(texts)), key=lambda i: -len(texts[i]))
            shares = [order[w::n] for w in range(n)]
            futures = [self._pool.submit(self._workers[w].run, [texts[i] for i in share],
                                         MICRO_BATCH) for w, share in enumerate(shares)]
            out = np.empty((len(texts), self.dimension), dtype=np.float32)
            for share, fut in zip(shares, futures):
                out[share] = fut.result()
            return out

    def encode_queries(self, texts: Sequence[str]) -> np.ndarray:
        """Queries (one, or several that arrived together) on the one-thread query session:
        never behind an ingest batch, and a query's vector does not depend on how many
        arrived with it (each text runs alone, as on the batch sessions)."""
        if resolve_threads(self.num_threads) == 1:  # one core: share the one session
            with self._batch_lock:
                return self._workers[0].run(texts, MICRO_BATCH)
        with self._query_lock:
            if self._query is None:
                self._query = Runner(self.export, 1)
            return self._query.run(texts, MICRO_BATCH)
