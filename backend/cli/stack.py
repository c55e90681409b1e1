"""`python -m backend stack start|stop|status`: the scale-out stack on one machine, every part
on 127.0.0.1 (backend/deploy/stack.py, docs/deployment.md)."""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from backend.config import Settings

PORT_OPTIONS = ("postgres", "chroma", "search", "api", "dashboard")


def _stack(a):
    from backend.deploy.stack import DEFAULT_PORTS, Stack

    d = Path(a.dir) if a.dir else Settings().data_dir / "stack"
    ports = {n: getattr(a, f"{n}_port") or DEFAULT_PORTS[n] for n in PORT_OPTIONS}
    if a.action != "start":  # stop/status: the ports the stack was started with
        ports = Stack(d).state().get("ports") or ports
    return Stack(d, ports=ports, workers=a.api_workers)


def cmd_stack(a) -> int:
    from backend.deploy.stack import status_json

    stack = _stack(a)
    if a.action == "stop":
        stopped = stack.stop()
        print(f"stopped: {', '.join(stopped)}" if stopped else f"nothing running in {stack.dir}")
        return 0
    if a.action == "start":
        parts = stack.start(echo=lambda line: print(line, file=sys.stderr, flush=True))
    else:
        parts = stack.status()
    if a.json:
        print(status_json(parts))
    else:
        for p in parts:
            print(p.line())
        if not parts:
            print(f"no stack running in {stack.dir}")
        if a.action == "start":
            print(f"API http://127.0.0.1:{stack.ports['api']}/api ({stack.workers} workers, MCP "
                  f"on /mcp), dashboard http://127.0.0.1:{stack.ports['dashboard']}\n"
                  f"point the CLI at it: source {stack.env_file}")
    return 0 if parts and all(p.healthy for p in parts) else 1


def register(subparsers: argparse._SubParsersAction) -> None:
    x = subparsers.add_parser(
        "stack", help="start/stop PostgreSQL, Chroma, OpenSearch, API workers, dashboard and "
                      "crawl scheduler on 127.0.0.1")
    x.add_argument("action", choices=("start", "stop", "status"))
    x.add_argument("--dir", help="the stack's folder: databases, logs, stack.env "
                                 "(default <data_dir>/stack; kept between starts)")
    x.add_argument("--api-workers", type=int, default=2, help="uvicorn worker processes")
    for name in PORT_OPTIONS:
        x.add_argument(f"--{name}-port", type=int, help=f"port of the {name} part")
    x.add_argument("--json", action="store_true", help="print the status as JSON")
    x.set_defaults(fn=cmd_stack)
