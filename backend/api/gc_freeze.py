"""Keep the garbage collector off the objects a server process keeps for its whole life.

A full collection walks every tracked object that is not frozen. Start-up makes ~150k
(modules, index clients, the app), and the first requests import and open the rest of the
retrieval path lazily (Chroma, ONNX Runtime, the query encoder: another ~58k). Unfrozen, they
made every full collection of a busy API process cost 30-40 ms, every 1-2 s at 70 searches/s
(docs/benchmarks.md, "HTTP API capacity and open-loop load"). So the process freezes once at
start and again after any request during which modules were imported."""
from __future__ import annotations

import gc
import sys


def freeze() -> None:
    """Collect what is garbage now, then move every surviving object out of the
    collector's view (it is still freed when its last reference goes)."""
    gc.collect()
    gc.freeze()


class FreezeAfterImports:
    """ASGI wrapper: after an HTTP request that imported modules (the lazily loaded parts
    arrive with the first searches and asks), `freeze()` again. A check per request is one
    `len(sys.modules)`; the collection itself runs a few times early in a process's life."""

    def __init__(self, app):
        self.app = app
        self._modules = len(sys.modules)

    def __getattr__(self, name):  # app.state and the rest, as on the wrapped app
        return getattr(self.app, name)

    async def __call__(self, scope, receive, send):
        await self.app(scope, receive, send)
        if scope["type"] == "http" and len(sys.modules) != self._modules:
            self._modules = len(sys.modules)
            freeze()
