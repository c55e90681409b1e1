"""What travels between a CLI process and the serving process it hands `search` and `ask` to
(backend/bridge/__init__.py): the run file the server announces itself in, the header its
secret travels in, and the arguments each call takes."""
from __future__ import annotations

import argparse
from pathlib import Path

from backend.errors import RagscopeError

RUN_FILE = Path("run") / "api.json"
SECRET_HEADER = "X-Ragscope-Local"
SEARCH_ARGS = ("query", "policy", "k", "collection", "fusion", "expand", "save_trace", "as_user",
               "tag", "category")
ASK_ARGS = ("question", "session", "provider", "model", "collection", "context", "user",
            "as_user", "author_profile")


def namespace(body: dict, allowed: tuple[str, ...]) -> argparse.Namespace:
    """The arguments a client sent, limited to those of the command."""
    unknown = sorted(set(body) - set(allowed))
    if unknown:
        raise RagscopeError(f"unknown argument {unknown[0]!r}")
    return argparse.Namespace(**{k: body.get(k) for k in allowed})
