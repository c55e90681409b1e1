"""Where `ChromaVectorIndex` gets its Chroma client: a server (nothing to reopen), or the
embedded persistent client of a directory, shared by every index object of the process and
reopened when another process committed a write (see `EmbeddedSource`)."""
from __future__ import annotations

import contextlib
import logging
import threading
import time
from pathlib import Path
from typing import Any, Iterator

from backend.index.writelock import IndexWriteLock

log = logging.getLogger(__name__)


class _RWLock:
    """Many readers or one writer, within a process (the reopen of a client is the writer)."""

    def __init__(self) -> None:
        self._cond = threading.Condition()
        self._readers = 0
        self._writer = False

    @contextlib.contextmanager
    def read(self) -> Iterator[None]:
        with self._cond:
            while self._writer:
                self._cond.wait()
            self._readers += 1
        try:
            yield
        finally:
            with self._cond:
                self._readers -= 1
                self._cond.notify_all()

    @contextlib.contextmanager
    def write(self) -> Iterator[None]:
        with self._cond:
            while self._writer or self._readers:
                self._cond.wait()
            self._writer = True
        try:
            yield
        finally:
            with self._cond:
                self._writer = False
                self._cond.notify_all()


class ClientSource:
    """Where the index gets its client from. `epoch` changes whenever the client was
    replaced, so collection handles fetched from an older client are fetched again."""

    epoch = 0

    @contextlib.contextmanager
    def reading(self) -> Iterator[Any]:  # pragma: no cover - interface
        raise NotImplementedError
        yield

    @contextlib.contextmanager
    def writing(self) -> Iterator[Any]:  # pragma: no cover - interface
        raise NotImplementedError
        yield


class ServerSource(ClientSource):
    """A Chroma server: the server orders concurrent writes; nothing to reopen."""

    def __init__(self, client: Any):
        self.client = client

    @contextlib.contextmanager
    def reading(self) -> Iterator[Any]:
        yield self.client

    writing = reading


class EmbeddedSource(ClientSource):
    """The process's one persistent client for a directory. Chroma keeps the HNSW graph in
    memory and persists it from there, so a client opened before another process's commit
    neither sees those vectors (a stale reader) nor may write (it would persist a graph
    without them). Writers reopen under the index write lock when the generation moved;
    readers check the generation at most every `refresh_s` and reopen when no writer holds
    the lock (otherwise they keep their consistent older view a little longer)."""

    _registry: dict[str, "EmbeddedSource"] = {}
    _registry_guard = threading.Lock()

    def __init__(self, path: Path, lock: IndexWriteLock, refresh_s: float):
        self.path, self.lock, self.refresh_s = path, lock, refresh_s
        self._rw = _RWLock()
        self._reopen_guard = threading.Lock()
        self._checked = 0.0
        self.client: Any = None
        self.generation: str | None = None
        self.reopens = 0
        self.lock.on_commit(self._committed)
        with self._rw.write():
            self._open()

    @classmethod
    def for_path(cls, path: Path, lock: IndexWriteLock, refresh_s: float) -> "EmbeddedSource":
        key = str(Path(path).resolve())
        with cls._registry_guard:
            src = cls._registry.get(key)
            if src is None or src.lock is not lock:
                src = cls._registry[key] = cls(Path(path), lock, refresh_s)
            src.refresh_s = refresh_s
            return src

    def _open(self) -> None:
        import chromadb

        generation = self.lock.generation()  # read first: a later commit reopens again
        self.path.mkdir(parents=True, exist_ok=True, mode=0o700)
        self.client = chromadb.PersistentClient(path=str(self.path), settings=chroma_settings())
        self.generation = generation
        self.epoch += 1

    def _reopen(self) -> None:
        with self._reopen_guard:
            if self.lock.generation() == self.generation:
                return  # another thread reopened meanwhile
            with self._rw.write():
                old, self.client = self.client, None
                _close_client(old)
                self._open()
                self.reopens += 1

    def _committed(self, generation: str) -> None:
        """This process wrote under the lock: its client has seen every commit."""
        self.generation = generation

    def stale(self) -> bool:
        return self.lock.generation() != self.generation

    @contextlib.contextmanager
    def reading(self) -> Iterator[Any]:
        now = time.monotonic()
        if now - self._checked >= self.refresh_s:
            self._checked = now
            if self.stale():
                with self.lock.try_shared() as free:
                    if free:
                        self._reopen()
        with self._rw.read():
            yield self.client

    @contextlib.contextmanager
    def writing(self) -> Iterator[Any]:
        if not self.lock.held:  # pragma: no cover - a programming error
            raise RuntimeError("Chroma writes need the index write lock")
        if self.stale():
            self._reopen()
        try:
            with self._rw.read():
                yield self.client
        finally:  # a failed write may still have changed something: readers reopen
            self.lock.mark_written()


def chroma_settings() -> Any:
    from chromadb.config import Settings as ChromaSettings

    return ChromaSettings(anonymized_telemetry=False, allow_reset=False)


def _close_client(client: Any) -> None:
    """Release a persistent client so the next one loads the graph from disk. Chroma shares
    one System per path and process; close() stops it when this was its last client."""
    if client is None:
        return
    try:
        client.close()
    except Exception as exc:  # pragma: no cover - closing must not break a reopen
        log.warning("closing the Chroma client failed: %s", exc)
    from chromadb.api.shared_system_client import SharedSystemClient

    ident = getattr(client, "_identifier", None)
    if ident in SharedSystemClient._identifier_to_system:  # another client object still open
        log.warning("another Chroma client on %s is still open in this process; "
                    "stopping the shared system so the reopened client reads from disk", ident)
        SharedSystemClient._identifier_to_refcount.pop(ident, None)
        SharedSystemClient._identifier_to_system.pop(ident).stop()
