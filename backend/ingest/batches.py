"""The pipeline behind `Ingestor.ingest_many`: extraction of the next files overlaps the
embedding of the current batch.

The calling thread reads, extracts, chunks and stores files (each version committed with
status "indexing", as before) and collects them into a batch. A full batch (FLUSH_FILES files
or FLUSH_CHUNKS chunks, or FLUSH_AFTER_S after its first file) goes to one embedding thread;
the calling thread goes on extracting the next files meanwhile. When the next batch is full,
the calling thread takes the finished embeddings, hands the next batch to the embedding thread
and publishes the finished one (both indexes and activation, under the index write lock), so
publishing overlaps embedding too. At most one batch is embedded and one collected at a time,
so memory stays bounded.

Crash safety and the write lock are unchanged: embedding runs outside the index write lock,
publishing holds it, and a version becomes active only after both indexes have its chunks
(`Publisher.publish`, backend/ingest/publish.py). A process killed at any point leaves versions in "indexing"
whose job is dead; the next ingest or `check --repair` cleans them up.

Outcomes are reported (and `on_progress` called) in input order, in the calling thread, so
callers (the CLI's progress bar, a Streamlit page, the crawler's bookkeeping) never see
another thread."""
from __future__ import annotations

import time
from collections import deque
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable

from backend.ingest.records import (
    FLUSH_AFTER_S,
    FLUSH_CHUNKS,
    FLUSH_FILES,
    IngestItem,
    IngestOutcome,
    IngestProgress,
    _Pending,
)

if TYPE_CHECKING:
    from backend.ingest.indexing import Links

# False: embed and publish each batch before extracting the next (the sequential baseline that
# bench/bench_ingest_pipeline.py compares against; nothing else changes it)
OVERLAP = True


@dataclass
class _Slot:
    item: IngestItem
    outcome: IngestOutcome
    ready: bool


@dataclass
class _Batch:
    pending: list[tuple[_Slot, _Pending]]
    future: Future | None = None
    started: float = 0.0

    @property
    def chunks(self) -> int:
        return sum(len(p.chunks) for _, p in self.pending)


class Pipeline:
    """One `ingest_many` call. `put` each item's result as it is stored, `finish` at the end;
    both return True when the job asked to be cancelled."""

    def __init__(self, encode: Callable, publish: Callable, links: "Links", *,
                 total: int | None, report: Callable[[IngestItem, IngestOutcome], bool],
                 on_progress: Callable[[IngestProgress], None] | None):
        """`encode`: chunks -> vectors (run in the embedding thread); `publish`: stored
        versions and their vectors -> both indexes, activated (backend/ingest/publish.py);
        `links`: the batch's collection links, rewritten after each publish."""
        self.encode, self.publish, self.links = encode, publish, links
        self.total = total
        self._report_one = report  # records the outcome (job); True: cancel requested
        self.on_progress = on_progress
        self.t0 = time.monotonic()
        self.order: deque[_Slot] = deque()
        self.collecting = _Batch([])
        self.embedding: _Batch | None = None
        self.outcomes: list[IngestOutcome] = []
        self.failed = 0
        self.chunks_embedded = 0
        self.embed_s = 0.0
        self.cancel = False
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="ingest-embed")

    # ---- feeding ------------------------------------------------------------------------

    def put(self, item: IngestItem, res: IngestOutcome | _Pending) -> bool:
        pending = res if isinstance(res, _Pending) else None
        slot = _Slot(item, pending.outcome if pending else res, ready=pending is None)
        self.order.append(slot)
        if pending is not None:
            if not self.collecting.pending:
                self.collecting.started = time.monotonic()
            self.collecting.pending.append((slot, pending))
        self.advance()
        return self.cancel

    def advance(self, *, force: bool = False) -> None:
        """Publish a finished embedding; hand a full (or old, or the last) batch on."""
        b = self.collecting
        due = b.pending and (force or len(b.pending) >= FLUSH_FILES or b.chunks >= FLUSH_CHUNKS
                             or time.monotonic() - b.started >= FLUSH_AFTER_S)
        if due:
            done = self._take_embedded(wait=True)
            self._submit(b)
            self.collecting = _Batch([])
            self._publish(done)
            if not OVERLAP:
                self._publish(self._take_embedded(wait=True))
        elif self.embedding is not None and self.embedding.future.done():
            self._publish(self._take_embedded(wait=True))
        if len(self.links.waiting or ()) >= FLUSH_FILES:  # many unchanged files linked
            self.links.sync()
        self._report_ready()

    def finish(self) -> bool:
        """Embed and publish everything stored; report every outcome."""
        self.advance(force=True)
        self._publish(self._take_embedded(wait=True))
        self.links.sync()
        self._report_ready()
        return self.cancel

    def close(self) -> None:
        """Stop the embedding thread (after an error: a running batch is left to finish;
        its versions stay in "indexing" and are repaired like an interrupted ingest)."""
        self._pool.shutdown(wait=False, cancel_futures=True)

    # ---- stages -------------------------------------------------------------------------

    def _submit(self, batch: _Batch) -> None:
        chunks = [c for _, p in batch.pending for c in p.chunks]
        batch.future = self._pool.submit(self._embed, chunks)
        self.embedding = batch

    def _embed(self, chunks):
        t0 = time.perf_counter()
        vecs = self.encode(chunks)
        return vecs, time.perf_counter() - t0

    def _take_embedded(self, *, wait: bool) -> tuple[_Batch, object] | None:
        b = self.embedding
        if b is None or (not wait and not b.future.done()):
            return None
        self.embedding = None
        vecs, seconds = b.future.result()  # an embedding error ends the batch here
        self.embed_s += seconds
        return b, vecs

    def _publish(self, done: tuple[_Batch, object] | None) -> None:
        if done is None:
            return
        batch, vecs = done
        pending = [p for _, p in batch.pending]
        self.publish(pending, embeddings=vecs)
        self.links.sync()  # documents of the batch that joined a collection
        for slot, _ in batch.pending:
            slot.ready = True
        self.chunks_embedded += sum(len(p.chunks) for p in pending)
        self._progress(None, None)

    def _report_ready(self) -> None:
        while self.order and self.order[0].ready:
            slot = self.order.popleft()
            self.outcomes.append(slot.outcome)
            self.failed += not slot.outcome.ok
            self.cancel = self._report_one(slot.item, slot.outcome) or self.cancel
            self._progress(slot.item, slot.outcome)

    def waiting_chunks(self) -> int:
        return self.collecting.chunks + (self.embedding.chunks if self.embedding else 0)

    def progress(self) -> IngestProgress:
        return IngestProgress(len(self.outcomes), self.total, self.failed, self.chunks_embedded,
                              self.waiting_chunks(), time.monotonic() - self.t0, self.embed_s)

    def _progress(self, item: IngestItem | None, outcome: IngestOutcome | None) -> None:
        if self.on_progress is not None:
            p = self.progress()
            p.item, p.outcome = item, outcome
            self.on_progress(p)
