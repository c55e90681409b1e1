"""`python -m backend …`: everything the dashboard does, scriptable. Errors from the
RagscopeError hierarchy become one line on stderr and a non-zero exit, here and only here.

Who acts: the operator of the CLI (`Actor.system("cli")`: admin rights, every collection),
or with `--as NAME` the dashboard user NAME with the role and access groups the users file
and the store give it now, so an admin can see exactly what NAME sees (the CLI runs with
the data dir's permissions either way: `--as` narrows, it does not authenticate)."""
from __future__ import annotations

import argparse
import os
import sys

from backend.security.display import TerminalGuard, safe_text
from backend.errors import RagscopeError


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m backend", description="ragscope command line")
    p.add_argument("--as", dest="as_user", metavar="USER",
                   help="act as this dashboard user: its role and access groups apply "
                        "(default: the operator, who sees every collection)")
    sub = p.add_subparsers(dest="cmd", required=True)
    from backend.api import cli as cli_api
    from backend.cli import access as cli_access
    from backend.cli import admin as cli_admin
    from backend.cli import analysis as cli_analysis
    from backend.cli import chat as cli_chat
    from backend.cli import chatbot as cli_chatbot
    from backend.cli import config_admin as cli_config_admin
    from backend.cli import crawl as cli_crawl
    from backend.cli import critique as cli_critique
    from backend.cli import documents as cli_documents
    from backend.cli import ingest as cli_ingest
    from backend.cli import maintenance as cli_maintenance
    from backend.cli import profiles as cli_profiles
    from backend.cli import search as cli_search
    from backend.cli import search_node as cli_search_node
    from backend.cli import stack as cli_stack
    from backend.cli import tags as cli_tags
    from backend.cli import up as cli_up

    cli_documents.register(sub)
    cli_maintenance.register(sub)
    cli_search.register(sub)
    cli_crawl.register(sub)
    cli_chatbot.register(sub)
    cli_chat.register(sub)
    cli_profiles.register(sub)
    cli_ingest.register(sub)
    cli_analysis.register(sub)
    cli_access.register(sub)
    cli_api.register(sub)
    cli_search_node.register(sub)
    cli_stack.register(sub)
    cli_up.register(sub)
    cli_admin.register(sub)
    cli_critique.register(sub)
    cli_config_admin.register(sub)
    cli_tags.register(sub)
    return p


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    out, err = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = TerminalGuard.over(out), TerminalGuard.over(err)
    try:
        code = _run(args)
        out.flush()  # here, not at interpreter exit, so that a closed pipe is caught below
        return code
    except BrokenPipeError:  # `show X | head`: the reader left; no traceback, quiet exit
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, out.fileno())  # Python's final flush must not fail again
        return 141  # 128 + SIGPIPE, as a shell tool ends
    finally:
        sys.stdout, sys.stderr = out, err


def _run(args) -> int:
    from backend.security.private_files import private_umask

    try:
        with private_umask():  # nothing the command (or `up`'s dashboard) writes is readable
            return args.fn(args)  # by other users: see docs/security.md
    except RagscopeError as e:
        print(f"error: {safe_text(e)}", file=sys.stderr)
        return 2
    except ValueError as e:  # settings validation and similar bad input
        print(f"error: {safe_text(e)}", file=sys.stderr)
        return 2
