"""uvicorn protocols with a deadline for each request head (backend/api/serving.py).

uvicorn waits for a request head as long as a client keeps the socket open (150 half-sent
requests held 150 connections open). Both classes here close a connection whose head is not
complete `header_timeout` seconds after it opened (or after its previous response).

`GuardedHttpTools` is what `python -m backend api` serves with when httptools is installed:
its C parser costs markedly less CPU per request than h11 (docs/benchmarks.md, "Server CPU
per search: cached vocabulary, httptools"). h11 bounds a pending head at
`h11_max_incomplete_event_size` (16 KiB) and answers 400 beyond; httptools has no such bound,
so `GuardedHttpTools` applies the same one. `GuardedH11` is the fallback without httptools."""
from __future__ import annotations

import asyncio

import h11
from h11._connection import DEFAULT_MAX_INCOMPLETE_EVENT_SIZE  # what uvicorn's h11 uses too
from uvicorn.protocols.http.h11_impl import H11Protocol

try:
    from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol
except ImportError:  # httptools is optional: serve with h11 then
    HttpToolsProtocol = None  # type: ignore[assignment,misc]


class _HeadTimer:
    """The deadline timer of one connection (a mixin: `self.loop`, `self.transport`)."""

    header_timeout: float = 10.0
    _head_task: asyncio.TimerHandle | None = None

    def _arm_head(self) -> None:
        if self._head_task is None:
            self._head_task = self.loop.call_later(self.header_timeout, self._head_overdue)

    def _disarm_head(self) -> None:
        if self._head_task is not None:
            self._head_task.cancel()
            self._head_task = None

    def _head_pending(self) -> bool:
        raise NotImplementedError

    def _head_overdue(self) -> None:
        self._head_task = None
        if self._head_pending() and not self.transport.is_closing():
            self.logger.info("%s: closed, no complete request head within %g s",
                             "%s:%d" % self.client if self.client else "client",
                             self.header_timeout)
            self.transport.close()


class GuardedH11(_HeadTimer, H11Protocol):
    """uvicorn's h11 protocol with a deadline for each request head."""

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._arm_head()

    def _head_pending(self) -> bool:
        return self.conn.their_state is h11.IDLE

    def handle_events(self) -> None:
        super().handle_events()
        if not self._head_pending():  # a head arrived (or the client is gone)
            self._disarm_head()

    def on_response_complete(self) -> None:
        self._disarm_head()
        self._arm_head()  # for the next request on this connection; handle_events below
        super().on_response_complete()  # disarms it again if a pipelined head is waiting

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm_head()
        super().connection_lost(exc)


if HttpToolsProtocol is not None:
    class GuardedHttpTools(_HeadTimer, HttpToolsProtocol):
        """uvicorn's httptools protocol with a deadline and h11's size bound for each head.

        A head is pending from the connection's start, or from a response after which no
        parsed request waits, until the parser reports it complete. As h11 does, reading
        pauses when data arrives after a request's body while its response is not complete
        (uvicorn resumes it after the response), so a client cannot feed a pipelined head
        without bound while a request runs: beyond one read, its bytes wait in the socket
        and count against the bound once the head is pending."""

        _pending = False
        _head_bytes = 0

        def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
            super().connection_made(transport)
            self._await_head()

        def _await_head(self) -> None:
            self._pending, self._head_bytes = True, 0
            self._disarm_head()
            self._arm_head()

        def _head_pending(self) -> bool:
            return self._pending

        def data_received(self, data: bytes) -> None:
            if self._pending:
                self._head_bytes += len(data)
            super().data_received(data)
            if self.transport.is_closing():
                return
            if self._pending and self._head_bytes > self._head_limit():
                self.send_400_response("Request head too large.")  # as h11 does
            elif self._request_running():
                self.flow.pause_reading()  # as h11 does (its PAUSED state)

        def _request_running(self) -> bool:
            """The current request's body is read, its response not complete."""
            cycle = self.cycle
            return cycle is not None and not cycle.more_body and not cycle.response_complete

        def _head_limit(self) -> int:
            size = self.config.h11_max_incomplete_event_size
            return DEFAULT_MAX_INCOMPLETE_EVENT_SIZE if size is None else size

        def on_headers_complete(self) -> None:
            self._pending = False
            self._disarm_head()
            super().on_headers_complete()

        def on_response_complete(self) -> None:
            waiting = bool(self.pipeline)  # a parsed request starts now: its head is there
            super().on_response_complete()
            if not waiting and not self.transport.is_closing():
                self._await_head()

        def connection_lost(self, exc: Exception | None) -> None:
            self._disarm_head()
            super().connection_lost(exc)
else:
    GuardedHttpTools = None  # type: ignore[assignment,misc]


def guarded_protocol(header_timeout_s: float, parser: str = "auto") -> type:
    """The protocol class with this deadline: httptools when installed (or asked for), else
    h11 (`parser="h11"` asks for it)."""
    if parser == "httptools" and GuardedHttpTools is None:
        raise ImportError("httptools is not installed")
    base = GuardedHttpTools if parser != "h11" and GuardedHttpTools is not None else GuardedH11
    return type(base.__name__, (base,), {"header_timeout": float(header_timeout_s)})
