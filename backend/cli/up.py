"""`python -m backend up`: the sample corpus, the API + MCP server and the dashboard in one
command. `register(subparsers)` adds it to the main parser."""
from __future__ import annotations

import argparse
from pathlib import Path

from backend.config import Settings


def cmd_up(a) -> int:
    """Ingest the sample corpus (idempotent), start the API + MCP server beside the
    dashboard (unless --no-api) and the dashboard."""
    import os

    root = Path(__file__).resolve().parents[2]
    settings = Settings()
    if a.local_model:  # install (once) and select the model; this run's chat defaults to it
        from backend.cli.chat import cmd_models

        rc = cmd_models(argparse.Namespace(action="install", name=a.local_model, force=False,
                                           no_select=False, json=False, quiet=False))
        if rc:
            return rc
        os.environ["RAGSCOPE_CHAT_DEFAULT_PROVIDER"] = "local"  # the API and dashboard too
        settings = Settings()
    if settings.chat_default_provider == "local":  # fail now, not at the first question
        from backend.llm.local import check_model_file, check_runtime

        check_runtime()
        print(f"chat: local model {check_model_file(settings.local_model_path, settings.data_dir)} "
              "(loaded on the first question)")
    if not a.no_samples:
        from backend.cli.documents import cmd_ingest

        rc = cmd_ingest(argparse.Namespace(paths=[str(root / "data" / "samples")],
                                           collection="samples", quiet=False, as_user=None,
                                           as_new_document=False, new_version_of=None))
        if rc not in (0, 1):
            return rc
        from backend.cli.profiles import sample_profiles

        sample_profiles()  # the sample author profiles, unless there are profiles already
    if not a.no_api:
        from backend.api.cli import start_api_beside

        print(f"starting the API and MCP server on http://{settings.api_host}:"
              f"{a.api_port or settings.api_port}/api", flush=True)
        start_api_beside(settings.api_host, a.api_port or settings.api_port)
    from backend.deploy.stack import dashboard_command

    cmd = dashboard_command(a.address, a.port)
    print(f"starting the dashboard on http://{a.address}:{a.port}", flush=True)
    os.execvp(cmd[0], cmd)
    return 0  # not reached


def register(sub) -> None:
    x = sub.add_parser("up", help="ingest the sample corpus, start the API and the dashboard")
    x.add_argument("--address", default="127.0.0.1")
    x.add_argument("--port", type=int, default=8501)
    x.add_argument("--no-samples", action="store_true")
    x.add_argument("--no-api", action="store_true", help="start the dashboard only")
    x.add_argument("--api-port", type=int, help="port of the API (default RAGSCOPE_API_PORT)")
    x.add_argument("--local-model", nargs="?", const="qwen2.5-1.5b", metavar="NAME",
                   help="install (once) and select a local model (default qwen2.5-1.5b) and "
                        "answer with it (chat provider `local`)")
    x.set_defaults(fn=cmd_up)
