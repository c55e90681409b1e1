"""Coalescing concurrent calls into batches (backend/batching.py) and its uses: query
embeddings (backend/embed/embedder.py) and Chroma reads of concurrent searches
(backend/index/chroma_index.py). Every caller gets its own result, an error reaches only the
caller whose item causes it, an idle caller runs at once in its own thread, identical items
are computed once, and batched work gives the same results as one call at a time."""
from __future__ import annotations

import threading
import time

import numpy as np
import pytest

from backend.batching import CoalescingBatcher


def _in_threads(fn, args) -> dict:
    """fn(arg) for every arg, each in its own thread, started together; arg -> result or
    the exception it raised."""
    out: dict = {}
    start = threading.Barrier(len(args))

    def run(a):
        start.wait()
        try:
            out[a] = fn(a)
        except Exception as e:  # noqa: BLE001 - the test looks at it
            out[a] = e

    threads = [threading.Thread(target=run, args=(a,)) for a in args]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return out


def _wait_queued(b: CoalescingBatcher, n: int) -> None:
    deadline = time.monotonic() + 10
    while len(b._queue) < n:
        assert time.monotonic() < deadline, "callers did not queue"
        time.sleep(0.001)


def test_concurrent_calls_share_batches_and_each_gets_its_own_result():
    calls = []

    def slow_double(items):
        calls.append(list(items))
        time.sleep(0.02)
        return [2 * i for i in items]

    b = CoalescingBatcher(slow_double, max_batch=8)
    out = _in_threads(b.call, list(range(30)))
    assert out == {i: 2 * i for i in range(30)}
    assert sorted(x for c in calls for x in c) == list(range(30))
    assert max(len(c) for c in calls) <= 8
    assert b.batches == len(calls) and b.items == 30


def test_an_idle_caller_runs_at_once_in_its_own_thread():
    seen = []
    b = CoalescingBatcher(lambda items: seen.append((list(items), threading.get_ident()))
                          or items)
    assert b.call("q") == "q"
    # no timer and no hand-off: the caller's own thread ran its item, alone
    assert seen == [(["q"], threading.get_ident())] and b.batches == 1


def _gated(fn):
    """A batch function whose first call waits for `gate`, so the next callers queue up
    behind it and form one batch."""
    gate, calls = threading.Event(), []

    def batch(items):
        calls.append(list(items))
        if len(calls) == 1:
            gate.wait(10)
        return fn(items)

    return batch, gate, calls


def test_an_error_reaches_only_the_caller_whose_item_causes_it():
    def upper(items):
        if "bad" in items:
            raise ValueError("cannot encode 'bad'")
        return [i.upper() for i in items]

    fn, gate, calls = _gated(upper)
    b = CoalescingBatcher(fn)
    results: dict = {}
    first = threading.Thread(target=lambda: results.update(_in_threads(b.call, ["a"])))
    first.start()
    while not calls:
        time.sleep(0.001)
    others = threading.Thread(target=lambda: results.update(_in_threads(b.call,
                                                                        ["bad", "c", "d"])))
    others.start()
    _wait_queued(b, 3)  # "bad", "c", "d" wait behind "a" and form the next batch
    gate.set()
    first.join()
    others.join()
    assert ["bad", "c", "d"] in [sorted(c) for c in calls]  # they were batched together
    assert results["a"] == "A" and results["c"] == "C" and results["d"] == "D"
    assert isinstance(results["bad"], ValueError) and "bad" in str(results["bad"])
    assert b.call("e") == "E"  # not stuck after a failed batch


def test_an_error_of_every_item_reaches_every_caller():
    def broken(items):
        raise RuntimeError("model not loaded")

    out = _in_threads(CoalescingBatcher(broken).call, ["x", "y", "z"])
    assert all(isinstance(e, RuntimeError) and "model not loaded" in str(e)
               for e in out.values())


def test_identical_items_in_a_batch_are_computed_once():
    fn, gate, calls = _gated(lambda items: [f"<{i}>" for i in items])
    b = CoalescingBatcher(fn, dedupe=True)
    first = threading.Thread(target=b.call, args=("warm",))
    first.start()
    while not calls:
        time.sleep(0.001)
    out: list = []
    threads = [threading.Thread(target=lambda q=q: out.append(b.call(q)))
               for q in ["same", "same", "other", "same"]]
    for t in threads:
        t.start()
    _wait_queued(b, 4)
    gate.set()
    for t in [first, *threads]:
        t.join()
    assert sorted(out) == ["<other>", "<same>", "<same>", "<same>"]
    assert sorted(calls[1]) == ["other", "same"]  # each distinct item once


@pytest.mark.parametrize("max_batch", [1, 3])
def test_max_batch_is_respected(max_batch):
    sizes = []
    b = CoalescingBatcher(lambda items: sizes.append(len(items)) or items, max_batch=max_batch)
    _in_threads(b.call, list(range(10)))
    assert sum(sizes) == 10 and max(sizes) <= max_batch


# ---- query embeddings ------------------------------------------------------------------


def test_concurrent_query_embeddings_match_single_ones(shared_embedder):
    distinct = [f"Wie hoch ist der Wasserpreis im Jahr {2000 + i}?" for i in range(10)]
    shared_embedder.clear_cache()
    single = {q: shared_embedder.encode_queries([q])[0] for q in distinct}
    shared_embedder.clear_cache()
    out: dict = {}
    callers = [(i, q) for i, q in enumerate(distinct + distinct[:4])]  # some asked twice
    out = _in_threads(lambda c: shared_embedder.encode_query(c[1]), callers)
    for (i, q), vec in out.items():
        assert vec.shape == single[q].shape
        assert np.allclose(vec, single[q], atol=1e-5), q
    # callers of the same text get their own arrays
    same = [v for (i, q), v in out.items() if q == distinct[0]]
    same[0][:] = 0
    assert np.allclose(same[1], single[distinct[0]], atol=1e-5)
    shared_embedder.clear_cache()


class _FakeEncoder:
    """Vectors from the text's characters; one text makes the model fail; the first call
    waits so that the next callers form one batch."""

    dimension = 4

    def __init__(self):
        self.calls: list[list[str]] = []
        self.gate = threading.Event()

    def encode_queries(self, texts):
        self.calls.append(list(texts))
        if len(self.calls) == 1:
            self.gate.wait(10)
        if any("boom" in t for t in texts):
            raise ValueError("the model cannot encode this text")
        return np.array([[len(t), t.count("a"), t.count("e"), 1.0] for t in texts],
                        dtype=np.float32)


def test_a_failing_query_fails_only_its_own_search():
    from backend.embed.embedder import Embedder

    emb = Embedder("fake-model", backend="onnx")
    enc = emb._encoder = _FakeEncoder()
    first = threading.Thread(target=emb.encode_query, args=("first",))
    first.start()
    while not enc.calls:
        time.sleep(0.001)
    out: dict = {}
    others = threading.Thread(target=lambda: out.update(
        _in_threads(emb.encode_query, ["banana", "boom", "cherry tree"])))
    others.start()
    _wait_queued(emb._queries, 3)
    enc.gate.set()
    first.join()
    others.join()
    assert sorted(enc.calls[1]) == ["banana", "boom", "cherry tree"]  # one batch
    assert isinstance(out["boom"], ValueError)
    for text in ("banana", "cherry tree"):
        v = np.array([len(text), text.count("a"), text.count("e"), 1.0], dtype=np.float32)
        assert np.allclose(out[text], v / np.linalg.norm(v))
    assert "boom" not in emb._cache and "banana" in emb._cache  # errors are not cached


# ---- Chroma reads of concurrent searches -----------------------------------------------


@pytest.fixture
def chroma(tmp_path):
    from backend.config import Settings
    from backend.index.base import IndexedChunk
    from backend.index.chroma_index import ChromaVectorIndex

    ix = ChromaVectorIndex(Settings(data_dir=tmp_path / "var"))
    rng = np.random.default_rng(7)
    vecs = rng.standard_normal((60, 16)).astype(np.float32)
    vecs /= np.linalg.norm(vecs, axis=1, keepdims=True)
    ix.add([IndexedChunk(chunk_id=f"c-{i}", text=f"text {i}", document_id=i % 6,
                         version_id=i % 6, doc_type="ab"[i % 2],
                         memberships={"collection": (1,) if i % 3 else (2,)})
            for i in range(60)], vecs)
    queries = rng.standard_normal((12, 16)).astype(np.float32)
    yield ix, queries / np.linalg.norm(queries, axis=1, keepdims=True)
    ix.close()


@pytest.mark.parametrize("flt", [None, {"memberships": {"collection": [1]}},
                                 {"memberships": {"collection": [2]}, "doc_types": ["a"]}],
                         ids=["unfiltered", "wide filter", "narrow filter"])
def test_concurrent_vector_searches_return_what_single_ones_do(chroma, flt):
    from backend.index.base import IndexFilter

    ix, queries = chroma
    f = IndexFilter(**flt) if flt else None
    k = 5
    single = {i: [(h.chunk_id, round(h.score, 5)) for h in ix.search(q, k, f)]
              for i, q in enumerate(queries)}
    before = ix._nearest_calls.batches + ix._metadata_calls.batches
    out = _in_threads(lambda i: [(h.chunk_id, round(h.score, 5))
                                 for h in ix.search(queries[i], k, f)], list(range(12)))
    assert out == single
    assert all(len(hits) == k for hits in single.values())
    assert ix._nearest_calls.batches + ix._metadata_calls.batches > before  # coalesced path


def test_several_query_vectors_in_one_call_rank_like_single_ones(chroma):
    ix, queries = chroma
    many = ix.search_many(queries[:4], 7)
    assert [[h.chunk_id for h in hits] for hits in many] == \
        [[h.chunk_id for h in ix.search(q, 7)] for q in queries[:4]]
