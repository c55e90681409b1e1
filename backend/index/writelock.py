"""One writer for the indexes of a data dir, across processes and threads.

The embedded Chroma client keeps the HNSW graph in memory and persists it from there: a
process that writes with a graph loaded before another process's writes persists a graph
without them, and their vectors are lost (measured: 373 of 3,045 chunks after two concurrent
`ingest` runs). So every index write happens under one exclusive lock per data dir, and a
writer whose view is older than the last committed write reopens its client first.

- `hold(purpose)`: an exclusive `flock` on `<data_dir>/locks/index.lock`, re-entrant within
  a thread (a batch that holds it can call index methods that take it again) and exclusive
  between threads of one process (a threading.RLock in front of the flock). The kernel
  releases the flock when a process dies, so a crashed writer never leaves a stale lock.
- The generation: `<data_dir>/locks/index.generation` holds a token that changes after every
  hold in which something was written (`mark_written()`). Readers compare it with the token
  their client was opened at and reopen when it differs (`ChromaVectorIndex`); writers do the
  same under the lock before writing.
- Who holds the lock is written to `index.lock.holder` (pid, host, purpose, since) so a
  waiting process can say what it waits for."""
from __future__ import annotations

import contextlib
import fcntl
import json
import logging
import os
import socket
import threading
import time
import uuid
import weakref
from pathlib import Path
from typing import Callable, Iterator

from backend.errors import BackendUnavailable

log = logging.getLogger(__name__)

POLL_S = 0.05
ANNOUNCE_AFTER_S = 2.0  # log once that we wait, after this long


class IndexWriteLock:
    """See the module docstring. One instance per data dir and process: use `for_dir()`."""

    def __init__(self, root: Path, timeout_s: float = 600.0):
        self.root = Path(root)
        self.timeout_s = timeout_s
        self.path = self.root / "index.lock"
        self.generation_path = self.root / "index.generation"
        self.holder_path = self.root / "index.lock.holder"
        self._thread_lock = threading.RLock()
        self._depth = 0
        self._fh = None
        self._dirty = False
        self._listeners: list[weakref.WeakMethod | Callable[[str], None]] = []
        self._listeners_guard = threading.Lock()  # not the hold lock: a close never waits

    # ---- registry: one object per directory and process -------------------------------
    _registry: dict[str, "IndexWriteLock"] = {}
    _registry_guard = threading.Lock()

    @classmethod
    def for_dir(cls, data_dir: Path, timeout_s: float = 600.0) -> "IndexWriteLock":
        root = (Path(data_dir) / "locks").resolve()
        with cls._registry_guard:
            lock = cls._registry.get(str(root))
            if lock is None:
                lock = cls._registry[str(root)] = cls(root, timeout_s)
            lock.timeout_s = timeout_s
            return lock

    # ---- generation ----------------------------------------------------------------------
    def generation(self) -> str:
        """The token of the last committed write ("" before the first one)."""
        try:
            return self.generation_path.read_text(encoding="utf-8").strip()
        except FileNotFoundError:
            return ""

    def on_commit(self, fn: Callable[[str], None]) -> None:
        """Call `fn(new_generation)` in the writing process after each committed hold; bound
        methods are held weakly."""
        try:
            ref: weakref.WeakMethod | Callable[[str], None] = weakref.WeakMethod(fn)  # type: ignore[arg-type]
        except TypeError:  # a plain function or a builtin method: hold it strongly
            ref = fn
        with self._listeners_guard:
            self._listeners.append(ref)

    def off_commit(self, fn: Callable[[str], None]) -> None:
        """Stop calling `fn` (an index object closed); unknown functions are ignored."""
        with self._listeners_guard:
            self._listeners = [ref for ref in self._listeners
                               if (ref() if isinstance(ref, weakref.WeakMethod) else ref)
                               not in (fn, None)]

    def mark_written(self) -> None:
        """Something was written in the current hold: bump the generation on release."""
        self._dirty = True

    @property
    def held(self) -> bool:
        """True in the thread that holds the lock."""
        return self._depth > 0 and self._thread_lock._is_owned()  # type: ignore[attr-defined]

    # ---- holding ------------------------------------------------------------------------
    @contextlib.contextmanager
    def hold(self, purpose: str) -> Iterator["IndexWriteLock"]:
        if not self._thread_lock.acquire(timeout=self.timeout_s):
            raise BackendUnavailable(self._busy_message(purpose))
        try:
            if self._depth == 0:
                self._acquire_file(purpose)
            self._depth += 1
            try:
                yield self
            finally:
                self._depth -= 1
                if self._depth == 0:
                    self._release_file()
        finally:
            self._thread_lock.release()

    def _acquire_file(self, purpose: str) -> None:
        fh = self._open_lock_file()
        start = time.monotonic()
        announced = False
        while True:
            try:
                fcntl.flock(fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                waited = time.monotonic() - start
                if waited > self.timeout_s:
                    fh.close()
                    raise BackendUnavailable(self._busy_message(purpose)) from None
                if not announced and waited > ANNOUNCE_AFTER_S:
                    log.warning("waiting for the index write lock: %s", self._holder_text())
                    announced = True
                time.sleep(POLL_S)
        self._fh = fh
        self._dirty = False
        self._write_holder(purpose)

    def _open_lock_file(self):
        """The lock file, private to the owner like everything in the data dir."""
        self.root.mkdir(parents=True, exist_ok=True, mode=0o700)
        return os.fdopen(os.open(self.path, os.O_RDWR | os.O_CREAT, 0o600), "r+")

    def _release_file(self) -> None:
        fh, self._fh = self._fh, None
        try:
            if self._dirty:
                token = f"{time.time_ns()}-{uuid.uuid4().hex[:8]}"
                _write_atomic(self.generation_path, token)
                self._notify(token)
            with contextlib.suppress(OSError):
                self.holder_path.write_text("", encoding="utf-8")
        finally:
            self._dirty = False
            if fh is not None:
                fcntl.flock(fh, fcntl.LOCK_UN)
                fh.close()

    def _notify(self, token: str) -> None:
        with self._listeners_guard:
            refs = list(self._listeners)
        for ref in refs:
            fn = ref() if isinstance(ref, weakref.WeakMethod) else ref
            if fn is None:
                continue
            try:
                fn(token)
            except Exception:  # pragma: no cover - a listener must not break a commit
                log.exception("index generation listener failed")
        with self._listeners_guard:  # forget the listeners of collected objects
            self._listeners = [ref for ref in self._listeners
                               if not isinstance(ref, weakref.WeakMethod) or ref() is not None]

    # ---- shared (reader) side ------------------------------------------------------------
    @contextlib.contextmanager
    def try_shared(self) -> Iterator[bool]:
        """A non-blocking shared lock: True while no writer holds the lock (a reader reloads
        then), False otherwise (the reader keeps its current view and tries again later).
        In the thread that holds the exclusive lock it yields True."""
        if self.held:
            yield True
            return
        with self._open_lock_file() as fh:
            try:
                fcntl.flock(fh, fcntl.LOCK_SH | fcntl.LOCK_NB)
            except BlockingIOError:
                yield False
                return
            try:
                yield True
            finally:
                fcntl.flock(fh, fcntl.LOCK_UN)

    # ---- messages ------------------------------------------------------------------------
    def _write_holder(self, purpose: str) -> None:
        info = {"pid": os.getpid(), "host": socket.gethostname(), "purpose": purpose,
                "since": time.time()}
        with contextlib.suppress(OSError):
            _write_atomic(self.holder_path, json.dumps(info))

    def holder(self) -> dict | None:
        try:
            text = self.holder_path.read_text(encoding="utf-8").strip()
            return json.loads(text) if text else None
        except (OSError, ValueError):
            return None

    def _holder_text(self) -> str:
        h = self.holder()
        if not h:
            return "held by another ragscope process"
        age = time.time() - float(h.get("since", time.time()))
        return (f"held by pid {h.get('pid')} on {h.get('host')} for {h.get('purpose')!r} "
                f"since {age:.0f} s")

    def _busy_message(self, purpose: str) -> str:
        return (f"cannot {purpose}: the index write lock of {self.root.parent} is "
                f"{self._holder_text()}; waited {self.timeout_s:g} s "
                "(RAGSCOPE_INDEX_LOCK_TIMEOUT_S). Try again when that work has finished.")


def _write_atomic(path: Path, text: str) -> None:
    tmp = path.with_name(f"{path.name}.{os.getpid()}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as fh:
        fh.write(text)
    os.replace(tmp, path)
