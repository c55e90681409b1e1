"""The service container: settings, store, embedder and both indexes, built lazily once.
The CLI, the dashboard (one st.cache_resource factory) and the tests all go through it.

Ownership: `close()` closes the indexes this container built itself and disposes its store.
An index assigned from outside (`rs.vector_index = other.vector_index`, as tests share one)
belongs to whoever built it and is left open."""
from __future__ import annotations

import contextlib
import threading
from functools import cached_property

from backend.config import Settings, domain_rules
from backend.embed import INT8_VECTORS
from backend.store import Store

# 2: chunks carry membership tokens (collections) in both indexes; version 1 needs reindex
INDEX_SCHEMA_VERSION = 2


class Ragscope:
    def __init__(self, settings: Settings | None = None):
        from backend.store.runtime_settings import Overlay

        self._overlay = Overlay(settings or Settings())
        self.settings.ensure_dirs()
        domain_rules.configure(self.settings.domain_config_dir)  # config/domain/*.yaml
        self.store = Store(self.settings.db_url)
        self._overlay.attach(self.store)
        self._lock = threading.RLock()
        self._owned: list = []  # indexes built here, closed by close()

    @property
    def settings(self) -> Settings:
        """The RAGSCOPE_* settings with the admin's run-time overrides of the safe ones on
        top (backend/store/runtime_settings.py; re-read at most every 2 s)."""
        return self._overlay.get()

    @settings.setter
    def settings(self, value: Settings) -> None:
        self._overlay.base = value
        self._overlay.invalidate()
        self._overlay._current = value

    @property
    def settings_overlay(self):
        """The run-time overrides layer (invalidate it after a change in this process)."""
        return self._overlay

    @property
    def base_settings(self) -> Settings:
        """The settings from the environment alone (what a reset returns to)."""
        return self._overlay.base

    @cached_property
    def embedder(self):
        from backend.embed.embedder import Embedder

        s = self.settings
        with self._lock:
            return Embedder(s.embedding_model, backend=s.embedding_backend,
                            device=s.embedding_device, batch_size=s.embedding_batch_size,
                            num_threads=s.embedding_threads or None, cache_dir=s.models_dir)

    @cached_property
    def index_lock(self):
        """The data dir's index write lock (one writer across processes and threads)."""
        from backend.index.writelock import IndexWriteLock

        return IndexWriteLock.for_dir(self.settings.data_dir, self.settings.index_lock_timeout_s)

    @cached_property
    def section_paths(self):
        """Section breadcrumbs of recently retrieved versions (backend/retrieval/lookup.py),
        emptied whenever the index generation changes."""
        from backend.retrieval.lookup import SectionPathCache

        return SectionPathCache(self.index_lock.generation)

    @cached_property
    def vector_index(self):
        from backend.index.factory import make_vector_index

        with self._lock:
            return self._own(make_vector_index(self.settings, self.index_lock))

    @cached_property
    def keyword_index(self):
        from backend.index.factory import make_keyword_index

        with self._lock:
            return self._own(make_keyword_index(self.settings, self.index_lock))

    def _own(self, index):
        self._owned.append(index)
        return index

    @cached_property
    def path_policy(self):
        """What may be ingested from the file system (backend/ingest/paths.py)."""
        from backend.ingest.paths import PathPolicy

        return PathPolicy.from_settings(self.settings)

    def index_params(self) -> dict[str, dict]:
        """What the guardrails compare: how each index is (to be) built."""
        s = self.settings
        common = {"chunk_size": s.chunk_size, "chunk_overlap": s.chunk_overlap,
                  "schema_version": INDEX_SCHEMA_VERSION}
        vector = {**common, "backend": self.vector_index.name,
                  "embedding_model": s.embedding_model,
                  "embedding_backend": self.embedder.backend,
                  "dimension": self.embedder.dimension}
        if self.embedder.backend == "onnx-int8":
            vector["int8_vectors"] = INT8_VECTORS  # int8 vectors changed with the recipe
        if vector["backend"] == "chroma":  # how its graph is built and how it is searched
            vector.update(vector_search=self.vector_index.search_mode_wanted,
                          hnsw_m=s.hnsw_m, hnsw_ef_construction=s.hnsw_ef_construction,
                          hnsw_ef_search=s.hnsw_ef_search)
        return {
            "vector": vector,
            "keyword": {**common, "backend": self.keyword_index.name,
                        "analyzer": self.keyword_index.analyzer},
        }

    def close(self) -> None:
        """Close the vector and keyword index built here (the embedded Chroma client of the
        data dir is closed when its last user in the process closes) and dispose the store.
        Closing twice is harmless; another Ragscope on the same data dir keeps working."""
        with self._lock:
            owned, self._owned = self._owned, []
        with contextlib.ExitStack() as stack:  # every one is closed even if one raises
            stack.callback(self.store.dispose)
            for index in owned:
                stack.callback(index.close)
