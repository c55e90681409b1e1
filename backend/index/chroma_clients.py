"""Where `ChromaVectorIndex` gets its Chroma client: a server (nothing to reopen), or the
embedded persistent client of a directory, shared by every index object of the process and
reopened when another process committed a write (see `EmbeddedSource`).

Ownership: every index object that acquires a source releases it once (`release()`, called
by `ChromaVectorIndex.close()`). The embedded source of a directory counts its users; the
last release closes its client (`Client.close()`, which stops Chroma's shared System of that
path: SQLite connections, HNSW segment files, its runtime threads) and removes it from the
registry, so the next index object on that directory opens a fresh client."""
from __future__ import annotations

import contextlib
import logging
import threading
import time
from pathlib import Path
from typing import Any, Iterator
from urllib.parse import urlparse

from backend.errors import BackendUnavailable, ConfigError
from backend.index.writelock import IndexWriteLock

log = logging.getLogger(__name__)


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

    def release(self) -> None:  # pragma: no cover - interface
        """One user is done with the source (each acquirer calls it once)."""
        raise NotImplementedError


class ServerSource(ClientSource):
    """A Chroma server: the server orders concurrent writes; nothing to reopen. One per
    index object: `release()` closes its HTTP client."""

    def __init__(self, client: Any):
        self.client = client

    @contextlib.contextmanager
    def reading(self) -> Iterator[Any]:
        client = self.client
        if client is None:
            raise BackendUnavailable("the Chroma server client was closed")
        yield client

    writing = reading

    def release(self) -> None:
        client, self.client = self.client, None
        _close_quietly(client)


class EmbeddedSource(ClientSource):
    """The process's one persistent client for a directory. Chroma keeps the HNSW graph in
    memory and persists it from there, so a client opened before another process's commit
    neither sees those vectors (a stale reader) nor may write (it would persist a graph
    without them). Writers reopen under the index write lock when the generation moved;
    readers check the generation at most every `refresh_s` and reopen when no writer holds
    the lock (otherwise they keep their consistent older view a little longer).

    `for_path()` hands out the directory's source and counts the user; each user calls
    `release()` once, and the last one closes the client and drops the registry entry."""

    _registry: dict[str, "EmbeddedSource"] = {}
    _registry_guard = threading.Lock()

    def __init__(self, path: Path, lock: IndexWriteLock, refresh_s: float):
        self.path, self.lock, self.refresh_s = path, lock, refresh_s
        self.key = str(Path(path).resolve())
        self._rw = _RWLock()
        self._reopen_guard = threading.Lock()
        self._checked = 0.0
        self.client: Any = None
        self.generation: str | None = None
        self.reopens = 0
        self.users = 0  # index objects that acquired it and have not released it yet
        self.closed = False
        with self._rw.write():
            self._open()
        self.lock.on_commit(self._committed)

    @classmethod
    def for_path(cls, path: Path, lock: IndexWriteLock, refresh_s: float) -> "EmbeddedSource":
        """The directory's source, with one more user: the caller must `release()` it."""
        key = str(Path(path).resolve())
        with cls._registry_guard:
            src = cls._registry.get(key)
            if src is None or src.lock is not lock:
                src = cls._registry[key] = cls(Path(path), lock, refresh_s)
            src.refresh_s = refresh_s
            src.users += 1
            return src

    def release(self) -> None:
        """One user is done. The last one closes the client (Chroma stops the shared System
        of the path when its last client closes) and removes the registry entry."""
        with self._registry_guard:
            if self.users <= 0:
                return  # already closed: a second release is harmless
            self.users -= 1
            if self.users:
                return
            if self._registry.get(self.key) is self:
                del self._registry[self.key]
            self.closed = True
        self.lock.off_commit(self._committed)
        with self._rw.write():  # waits for reads and writes still under way
            client, self.client = self.client, None
        _close_quietly(client)

    def _open(self) -> None:
        import chromadb

        generation = self.lock.generation()  # read first: a later commit reopens again
        self.path.mkdir(parents=True, exist_ok=True, mode=0o700)
        self.client = chromadb.PersistentClient(path=str(self.path), settings=chroma_settings())
        self.generation = generation
        self.epoch += 1

    def _reopen(self) -> None:
        with self._reopen_guard:
            if self.closed or self.lock.generation() == self.generation:
                return  # closed, or another thread reopened meanwhile
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

    def _check_open(self) -> None:
        if self.closed:
            raise BackendUnavailable(f"the Chroma client of {self.path} was closed")

    @contextlib.contextmanager
    def reading(self) -> Iterator[Any]:
        self._check_open()
        now = time.monotonic()
        if now - self._checked >= self.refresh_s:
            self._checked = now
            if self.stale():
                with self.lock.try_shared() as free:
                    if free:
                        self._reopen()
        with self._rw.read():
            self._check_open()
            yield self.client

    @contextlib.contextmanager
    def writing(self) -> Iterator[Any]:
        if not self.lock.held:  # pragma: no cover - a programming error
            raise RuntimeError("Chroma writes need the index write lock")
        self._check_open()
        if self.stale():
            self._reopen()
        try:
            with self._rw.read():
                self._check_open()
                yield self.client
        finally:  # a failed write may still have changed something: readers reopen
            self.lock.mark_written()


def chroma_settings() -> Any:
    from chromadb.config import Settings as ChromaSettings

    return ChromaSettings(anonymized_telemetry=False, allow_reset=False)


def _close_quietly(client: Any) -> None:
    """Close a client that is no longer used: `Client.close()` (chromadb >= 1.1) gives back
    its reference to the shared System and stops it when this was the last one. Another
    client object on the same path in this process keeps the System running."""
    if client is None:
        return
    try:
        client.close()
    except Exception as exc:  # pragma: no cover - closing must not raise at shutdown
        log.warning("closing the Chroma client failed: %s", exc)


def _close_client(client: Any) -> None:
    """Release a persistent client so the next one loads the graph from disk. Chroma shares
    one System per path and process; close() stops it when this was its last client."""
    if client is None:
        return
    _close_quietly(client)
    from chromadb.api.shared_system_client import SharedSystemClient

    ident = getattr(client, "_identifier", None)
    if ident in SharedSystemClient._identifier_to_system:  # another client object still open
        log.warning("another Chroma client on %s is still open in this process; "
                    "stopping the shared system so the reopened client reads from disk", ident)
        SharedSystemClient._identifier_to_refcount.pop(ident, None)
        SharedSystemClient._identifier_to_system.pop(ident).stop()
