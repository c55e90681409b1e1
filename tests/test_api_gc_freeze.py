"""The API process keeps the garbage collector off its long-lived objects
(backend/api/gc_freeze.py): full collections of a busy server walked the lazily loaded
retrieval path (30-40 ms each) and, before that, the dictionary's 280k lists (0.24 s each),
seen as 0.3-0.7 s stalls every few hundred searches (docs/benchmarks.md)."""
from __future__ import annotations

import asyncio
import gc
import sys
import types
from pathlib import Path

import pytest

from backend.api import gc_freeze
from backend.api.gc_freeze import FreezeAfterImports
from backend.retrieval import dictionary

FIXTURE = Path(__file__).parent / "fixtures" / "dictionary" / "ding_sample.txt"


@pytest.fixture
def unfrozen():
    gc.unfreeze()
    yield
    gc.unfreeze()


def _call(app, scope_type: str = "http") -> list:
    sent = []

    async def receive():
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(msg):
        sent.append(msg)

    asyncio.run(app({"type": scope_type}, receive, send))
    return sent


def test_a_request_that_imports_modules_freezes_what_it_loaded(unfrozen, monkeypatch):
    name = "ragscope_test_lazy_module"

    async def app(scope, receive, send):
        if scope["type"] == "http":
            held = sys.modules.setdefault(name, types.ModuleType(name))  # a lazy import
            if not hasattr(held, "cache"):  # what it keeps for the process's life
                held.cache = [[i] for i in range(1000)]
            await send({"type": "http.response.start", "status": 200, "headers": []})
            await send({"type": "http.response.body", "body": b"ok"})

    app.state = "the app's state"
    served = FreezeAfterImports(app)
    assert served.state == "the app's state"  # cmd_api sets app.state on the wrapped app
    try:
        assert gc.get_freeze_count() == 0
        sent = _call(served)
        assert sent[-1]["body"] == b"ok"  # the response is the app's
        assert gc.get_freeze_count() >= 1000  # the module's cache is out of the collector's view
        calls = []
        monkeypatch.setattr(gc_freeze, "freeze", lambda: calls.append(1))
        _call(served)  # nothing imported: no new collection and freeze
        assert calls == []
        sys.modules.setdefault(name + "_2", types.ModuleType(name + "_2"))
        _call(served)  # a module arrived since: frozen again
        assert calls == [1]
    finally:
        sys.modules.pop(name, None)
        sys.modules.pop(name + "_2", None)


def test_lifespan_and_websocket_scopes_never_freeze(unfrozen):
    async def app(scope, receive, send):
        sys.modules.setdefault("ragscope_test_lazy_ws", types.ModuleType("x"))

    try:
        _call(FreezeAfterImports(app), "lifespan")
        assert gc.get_freeze_count() == 0
    finally:
        sys.modules.pop("ragscope_test_lazy_ws", None)


def test_the_loaded_dictionary_is_not_tracked_by_the_collector():
    d = dictionary.load(FIXTURE)
    assert d.translate("Umsatz", "de") == ["revenue", "turnover"]  # still a list for callers
    gc.collect()
    assert not gc.is_tracked(d.de_en) and not gc.is_tracked(d.en_de)
    assert not any(gc.is_tracked(v) for v in d.de_en.values())
    assert isinstance(d.verbs, frozenset)
