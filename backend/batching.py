"""Coalescing of concurrent calls into batches, with no added wait.

`CoalescingBatcher(fn)` turns a batch function `fn(items) -> results` into a per-item
`call(item)`. The first caller runs `fn` at once on what is queued (just its own item when
the server is idle: no timer, no extra latency). Callers that arrive while a batch runs
queue up; when it ends, one of them runs the next batch with everything queued meanwhile.
Under load each model call does the work of many requests (an embedding forward pass of 16
short queries costs a fraction of 16 passes), so throughput grows with the load instead of
latency growing with the queue (docs/benchmarks.md, "HTTP API under load").

`dedupe=True` (hashable items): equal items in one batch are computed once and every caller
of them gets the result. When a batch of several items fails, each item is run again alone,
so an error reaches only the caller whose item causes it; the others get their results."""
from __future__ import annotations

import threading
from typing import Callable, Generic, Sequence, TypeVar

T = TypeVar("T")
R = TypeVar("R")


class _Pending(Generic[T, R]):
    __slots__ = ("item", "done", "result", "error")

    def __init__(self, item: T):
        self.item = item
        self.done = False
        self.result: R | None = None
        self.error: BaseException | None = None


class CoalescingBatcher(Generic[T, R]):
    def __init__(self, fn: Callable[[list[T]], Sequence[R]], max_batch: int = 32, *,
                 dedupe: bool = False):
        self._fn = fn
        self._max = max(1, max_batch)
        self._dedupe = dedupe
        self._cond = threading.Condition()
        self._queue: list[_Pending[T, R]] = []
        self._busy = False
        self.batches = 0  # how many calls of fn (tests, benches)
        self.items = 0  # how many items they carried

    def call(self, item: T) -> R:
        mine: _Pending[T, R] = _Pending(item)
        with self._cond:
            self._queue.append(mine)
        while True:
            with self._cond:
                while self._busy and not mine.done:
                    self._cond.wait()
                if mine.done:
                    break
                self._busy = True  # this caller runs the next batch (its own item included,
                batch = self._queue[:self._max]  # unless more than max_batch wait before it)
                del self._queue[:self._max]
            try:
                self._run(batch)
            finally:
                with self._cond:
                    self.batches += 1
                    self.items += len(batch)
                    for p in batch:
                        p.done = True
                    self._busy = False
                    self._cond.notify_all()
        if mine.error is not None:
            raise mine.error
        return mine.result  # type: ignore[return-value]

    def _run(self, batch: list[_Pending[T, R]]) -> None:
        """Fill in every pending item's result or error."""
        items = [p.item for p in batch]
        if self._dedupe:
            items = list(dict.fromkeys(items))
            index = {item: i for i, item in enumerate(items)}
            pos = [index[p.item] for p in batch]
        else:
            pos = list(range(len(batch)))
        try:
            outcomes = [(r, None) for r in self._apply(items)]
        except Exception as e:  # noqa: BLE001 - handed to the caller(s) it belongs to
            if len(items) == 1:
                outcomes = [(None, e)]
            else:  # each item alone again: an error goes to its own caller(s) only
                outcomes = []
                for item in items:
                    try:
                        outcomes.append((self._apply([item])[0], None))
                    except Exception as e1:  # noqa: BLE001
                        outcomes.append((None, e1))
        except BaseException as e:  # an interrupt reaches every caller of the batch
            for p in batch:
                p.error = e
            raise
        for p, i in zip(batch, pos):
            p.result, p.error = outcomes[i]

    def _apply(self, items: list[T]) -> list[R]:
        results = list(self._fn(items))
        if len(results) != len(items):
            raise RuntimeError(f"batch function returned {len(results)} results for "
                               f"{len(items)} items")
        return results
