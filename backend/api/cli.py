"""`python -m backend api | mcp | token …`: start the HTTP API + MCP server, run the MCP
server over stdio, manage API tokens. Registered by backend/cli/main.py (the CLI imports the
API, never the reverse); errors become one line and exit 2 there."""
from __future__ import annotations

import argparse
import os
import sys

from backend.api.gc_freeze import FreezeAfterImports, freeze
from backend.config import Settings

MCP_TOKEN_ENV = "RAGSCOPE_MCP_TOKEN"


def _rs():
    from backend.services.container import Ragscope

    return Ragscope(Settings())


def cmd_api(a) -> int:
    """Serve the HTTP API and MCP (uvicorn) in the foreground."""
    import uvicorn

    from backend.api import serving
    from backend.api.http import create_app

    s = Settings()
    host, port = a.host or s.api_host, a.port or s.api_port
    app = create_app(settings=s)
    freeze_startup_objects()
    served = FreezeAfterImports(app)
    print(f"ragscope API on http://{host}:{port}/api (docs: /docs), MCP on /mcp", flush=True)
    if host in ("127.0.0.1", "localhost", "::1", "0.0.0.0", "::"):
        # the CLI's search/ask run here while this process is up (backend/bridge/)
        from backend.api import local_bridge

        local = "127.0.0.1" if host in ("0.0.0.0", "localhost") else \
            "[::1]" if host in ("::", "::1") else host
        app.state.local_secret = local_bridge.publish(s.data_dir, f"http://{local}:{port}")
    serving.exit_on_sigterm()  # clean-up below runs on SIGTERM as on Ctrl-C
    try:
        server = uvicorn.Server(serving.config(served, host=host, port=port,
                                               log_level=a.log_level, settings=s))
        serving.guard_root_logger()
        server.run()
    finally:
        from backend.api import local_bridge

        local_bridge.withdraw(s.data_dir)
    return 0


def worker_app():
    """The app of one uvicorn worker (`uvicorn --factory backend.api.cli:worker_app
    --workers N`, started by `python -m backend stack`): settings from the environment only.
    No CLI bridge run file: it names one process, and the workers are several."""
    from backend.api.http import create_app

    app = create_app(settings=Settings())
    freeze_startup_objects()
    return FreezeAfterImports(app)


def freeze_startup_objects() -> None:
    """Move what start-up made (modules, the index clients, the app: ~150k objects) out of
    the garbage collector's view: full collections then scan only what requests make.
    Measured with 4 threads searching: collector time per search 1.0-1.6 ms -> 0.1-0.3 ms
    (docs/benchmarks.md, "HTTP API under load"). What the first requests load lazily is
    frozen by `FreezeAfterImports` (backend/api/gc_freeze.py)."""
    freeze()


def cmd_mcp(a) -> int:
    """The MCP server over stdio (for a client that spawns it). Stdout is the protocol;
    everything else goes to stderr."""
    from backend.api.deps import actor_for
    from backend.api.mcp_server import build_mcp

    token = a.token or os.environ.get(MCP_TOKEN_ENV) or ""
    if not token:
        print(f"error: the MCP server needs an API token: set {MCP_TOKEN_ENV} or pass --token "
              "(python -m backend token create NAME --scopes read)", file=sys.stderr)
        return 2
    rs = _rs()
    actor = actor_for(rs, f"Bearer {token}")  # fail now, not at the first tool call
    print(f"ragscope MCP over stdio as {actor.username} ({actor.role})", file=sys.stderr,
          flush=True)
    build_mcp(rs, stdio_token=token).run("stdio")
    return 0


def cmd_token_create(a) -> int:
    from backend.api.tokens import create_token

    info, token = create_token(_rs().store, a.principal, a.scopes, created_by="cli",
                               expires_days=None if a.no_expiry else a.expires_days,
                               description=a.description or "")
    expires = info.expires_at.strftime("%Y-%m-%d %H:%M UTC") if info.expires_at else "never"
    print(f"token {info.id} ({info.key_id}) for principal {info.principal}, scopes "
          f"{','.join(info.scopes)}, expires {expires}. Copy it now, it is not shown again "
          "(stdout has only the token):", file=sys.stderr)
    print(token)
    return 0


def cmd_token_list(a) -> int:
    from backend.api.tokens import list_tokens

    rows = list_tokens(_rs().store, a.principal)

    def t(x):
        return x.strftime("%Y-%m-%d %H:%M") if x else "-"

    print(f"{'id':>4}  {'key id':<12}  {'principal':<20} {'scopes':<16} {'status':<8} "
          f"{'expires':<16} {'last used':<16} description")
    for r in rows:
        print(f"{r.id:>4}  {r.key_id:<12}  {r.principal:<20} {','.join(r.scopes):<16} "
              f"{r.status:<8} {t(r.expires_at):<16} {t(r.last_used_at):<16} {r.description}")
    print(f"{len(rows)} tokens")
    return 0


def cmd_token_revoke(a) -> int:
    from backend.api.tokens import revoke_token

    info = revoke_token(_rs().store, a.token)
    print(f"token {info.id} ({info.key_id}) of {info.principal} revoked")
    return 0


def api_command(host: str, port: int) -> list[str]:
    return [sys.executable, "-m", "backend", "api", "--host", host, "--port", str(port)]


def start_api_beside(host: str, port: int):
    """`python -m backend api` as a child that ends with its parent (`up` execs the
    dashboard in its place; Linux: PR_SET_PDEATHSIG, so it never outlives the dashboard)."""
    import signal
    import subprocess

    def die_with_parent() -> None:
        try:
            import ctypes

            ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG
        except (OSError, AttributeError):  # not Linux: Ctrl-C still stops both
            pass

    return subprocess.Popen(api_command(host, port), preexec_fn=die_with_parent)


def register(sub: argparse._SubParsersAction) -> None:
    x = sub.add_parser("api", help="serve the HTTP API and the MCP server (uvicorn)")
    x.add_argument("--host", help="address to bind (default RAGSCOPE_API_HOST, 127.0.0.1)")
    x.add_argument("--port", type=int, help="port (default RAGSCOPE_API_PORT, 8000)")
    x.add_argument("--log-level", default="info",
                   choices=["critical", "error", "warning", "info", "debug"])
    x.set_defaults(fn=cmd_api)
    x = sub.add_parser("mcp", help="run the MCP server over stdio")
    x.add_argument("--token", help=f"API token (default: ${MCP_TOKEN_ENV})")
    x.set_defaults(fn=cmd_mcp)
    tok = sub.add_parser("token", help="create, list and revoke API tokens")
    tsub = tok.add_subparsers(dest="token_cmd", required=True)
    x = tsub.add_parser("create", help="create a token for a principal (shown once)")
    x.add_argument("principal", help="the principal's name (members of access groups by it)")
    x.add_argument("--scopes", default="read", help="comma-separated: read, write, admin")
    x.add_argument("--expires-days", type=float, default=90.0)
    x.add_argument("--no-expiry", action="store_true", help="the token never expires")
    x.add_argument("--description", "-d", default="")
    x.set_defaults(fn=cmd_token_create)
    x = tsub.add_parser("list", help="list tokens (never the secret)")
    x.add_argument("--principal")
    x.set_defaults(fn=cmd_token_list)
    x = tsub.add_parser("revoke", help="revoke a token by id or key id")
    x.add_argument("token")
    x.set_defaults(fn=cmd_token_revoke)
