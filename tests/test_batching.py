"""Coalescing concurrent calls into batches (backend/batching.py) and its use for query
embeddings: every caller gets its own result, errors reach every caller of the batch, an
idle caller is not delayed, and concurrent queries embed like sequential ones."""
from __future__ import annotations

import threading
import time

import numpy as np
import pytest

from backend.batching import CoalescingBatcher


def test_concurrent_calls_share_batches_and_each_gets_its_own_result():
    calls = []

    def slow_double(items):
        calls.append(list(items))
        time.sleep(0.05)
        return [2 * i for i in items]

    b = CoalescingBatcher(slow_double, max_batch=8)
    out = {}
    threads = [threading.Thread(target=lambda i=i: out.__setitem__(i, b.call(i)))
               for i in range(30)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert out == {i: 2 * i for i in range(30)}
    assert sorted(x for c in calls for x in c) == list(range(30))
    assert len(calls) < 30 and max(len(c) for c in calls) <= 8
    assert b.batches == len(calls) and b.items == 30


def test_an_idle_caller_runs_at_once_alone():
    seen = []
    b = CoalescingBatcher(lambda items: seen.append(list(items)) or items)
    t0 = time.perf_counter()
    assert b.call("q") == "q"
    assert seen == [["q"]] and time.perf_counter() - t0 < 0.05


def test_an_error_reaches_every_caller_of_the_batch_and_the_next_batch_runs():
    gate = threading.Event()

    def fn(items):
        if "bad" in items:
            raise ValueError("model failed")
        gate.wait(1)
        return items

    b = CoalescingBatcher(fn)
    results = {}

    def run(x):
        try:
            results[x] = b.call(x)
        except ValueError as e:
            results[x] = e

    first = threading.Thread(target=run, args=("a",))
    first.start()
    time.sleep(0.05)  # "a" runs; "bad" and "c" queue behind it and form the next batch
    others = [threading.Thread(target=run, args=(x,)) for x in ("bad", "c")]
    for t in others:
        t.start()
    time.sleep(0.05)
    gate.set()
    for t in [first, *others]:
        t.join()
    assert results["a"] == "a"
    assert isinstance(results["bad"], ValueError) and isinstance(results["c"], ValueError)
    assert b.call("d") == "d"  # not stuck after a failed batch


def test_concurrent_query_embeddings_match_sequential_ones(shared_embedder):
    queries = [f"Wie hoch ist der Wasserpreis im Jahr {2000 + i}?" for i in range(12)]
    shared_embedder.clear_cache()
    sequential = {q: shared_embedder.encode_query(q) for q in queries}
    shared_embedder.clear_cache()
    before = shared_embedder._queries.batches
    out = {}
    threads = [threading.Thread(target=lambda q=q: out.__setitem__(
        q, shared_embedder.encode_query(q))) for q in queries]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for q in queries:
        assert np.allclose(out[q], sequential[q], atol=1e-5)
    assert shared_embedder._queries.batches - before <= len(queries)
    shared_embedder.clear_cache()


@pytest.mark.parametrize("max_batch", [1, 3])
def test_max_batch_is_respected(max_batch):
    sizes = []
    b = CoalescingBatcher(lambda items: sizes.append(len(items)) or items, max_batch=max_batch)
    threads = [threading.Thread(target=b.call, args=(i,)) for i in range(10)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sum(sizes) == 10 and max(sizes) <= max_batch
