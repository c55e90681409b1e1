"""Chat command of `python -m backend`; `register(subparsers)` adds it to the main parser:

    ask QUESTION [--session UUID] [--provider P] [--model M] [--collection C ...] [--json]

Without --session a new session is created (its UUID is printed, so the conversation can be
continued with --session). With --session the stored session is used and extended; --provider,
--model and --collection given with it change that session's settings. The answer streams to
stdout, followed by its sources (cited first), the citation check and tokens/cost/latency.
Errors are RagscopeError subclasses; the main CLI prints them as one line."""
from __future__ import annotations

import argparse
import json
import sys

from backend.config import Settings


def _service():
    from backend.chat import ChatService
    from backend.services import Ragscope

    return ChatService(Ragscope(Settings()))


def cmd_ask(a) -> int:
    from backend.chat import Answered, Delta, Fallback, Retrieved

    svc = _service()
    changes = {k: v for k, v in (("provider", a.provider), ("model", a.model),
                                 ("collections", a.collection)) if v is not None}
    if a.session:
        sess = svc.get_session(a.session)
        if changes:
            sess = svc.update_settings(sess.uuid, **changes)
    else:
        sess = svc.create_session(a.user, **changes)
    answered = None
    for ev in svc.ask_stream(sess.uuid, a.question):
        if isinstance(ev, Retrieved) and not a.json:
            print(f"({len(ev.sources)} sources, {ev.retrieval_ms:.0f} ms)", file=sys.stderr)
        elif isinstance(ev, Delta) and not a.json:
            sys.stdout.write(ev.text)
            sys.stdout.flush()
        elif isinstance(ev, Fallback):
            print(f"\nwarning: {ev.notice}", file=sys.stderr)
        elif isinstance(ev, Answered):
            answered = ev
    assert answered is not None
    m = answered.message
    if a.json:
        print(json.dumps({"session": answered.session.uuid, "title": answered.session.title,
                          "answer": m.to_dict()}, ensure_ascii=False, indent=2, default=str))
        return 0
    print("\n")
    _print_sources(m)
    c = m.citations
    if c.get("invalid"):
        print("citations without a source: " + ", ".join(f"[{n}]" for n in c["invalid"]))
    for s in c.get("uncited_sentences", []):
        print(f"no citation: {s}")
    cost = ("local" if m.cost_label == "local" else "unknown" if m.cost_usd is None
            else f"${m.cost_usd:.4f}")
    counted = " (counted locally)" if m.tokens_counted_locally else ""
    print(f"{m.provider}/{m.model} · {m.tokens_input} in / {m.tokens_output} out tokens"
          f"{counted} · {cost} · {(m.latency_ms or 0) / 1000:.2f} s"
          + (" · extractive fallback" if m.fallback else ""))
    print(f"session {answered.session.uuid} ({answered.session.title})")
    return 0


def _print_sources(m) -> None:
    if not m.sources:
        print("no sources")
        return
    for cited in (True, False):
        group = [s for s in m.sources if bool(s["cited"]) is cited]
        if group:
            print("cited sources:" if cited else "not cited:")
        for s in group:
            where = " › ".join(s.get("section_path") or []) or "-"
            page = f", p. {s['page']}" if s.get("page") is not None else ""
            print(f"  [{s['n']}] {s['title']} — {where}{page} (score {s['score']:.3f}, "
                  f"document {s['document_id']})")
    if m.trace_id:
        print(f"retrieval trace: {m.trace_id}")


def register(subparsers: argparse._SubParsersAction) -> None:
    x = subparsers.add_parser("ask", help="answer a question with citations (chat session)")
    x.add_argument("question")
    x.add_argument("--session", "-s", help="UUID of a stored session to use and extend")
    x.add_argument("--provider", "-p",
                   choices=["extractive", "ollama", "anthropic", "openai"])
    x.add_argument("--model", "-m", help="model name (default: the provider's from settings)")
    x.add_argument("--collection", "-c", action="append",
                   help="search only this collection (repeatable)")
    x.add_argument("--user", help="owner of a new session (shown on the dashboard)")
    x.add_argument("--json", action="store_true", help="print the answer and sources as JSON")
    x.set_defaults(fn=cmd_ask)
