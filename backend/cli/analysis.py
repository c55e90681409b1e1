"""Analysis commands of `python -m backend`; `register(subparsers)` adds them:

    analyze DOC [--version N] [--what decisions,deadlines,...] [--section S] [--json|--csv]
    summarize DOC [--version N] [--section S] [--length short|medium|long] [--json]
    compare DOC_A [DOC_B | --version N [--against M]] [--json]
    xref QUERY [--doc DOC --section S] [--k N] [--collection C] [--json]

DOC is a document id, title or file name; S a section id, number ("TOP 3", "2.2", "§ 7"),
label or path. Errors are RagscopeError subclasses; the main CLI prints them as one line.
They act as the operator (every document) or, with `--as USER`, within that user's scope
(backend/cli/common.py `scope_of`): a document outside it is not found."""
from __future__ import annotations

import json
import sys

from backend.config import Settings


def _rs():
    from backend.services.container import Ragscope

    return Ragscope(Settings())


def _scope(a, rs):
    from backend.cli.common import scope_of

    return scope_of(a, rs)


def _dump(obj) -> None:
    print(json.dumps(obj, ensure_ascii=False, indent=2, default=str))


def _cell(v, width: int) -> str:
    s = "" if v is None else (", ".join(map(str, v)) if isinstance(v, (list, tuple)) else
                              "; ".join(f"{k}={x}" for k, x in v.items()) if isinstance(v, dict)
                              else str(v))
    s = " ".join(s.split())
    return s if len(s) <= width else s[: width - 1] + "…"


def cmd_analyze(a) -> int:
    from backend.analysis import export
    from backend.analysis.extractors import EXTRACTORS
    from backend.analysis.service import analyze_document

    rs = _rs()
    res = analyze_document(rs, a.doc, version=a.version, what=a.what, section=a.section,
                           llm=a.llm, scope=_scope(a, rs))
    if a.json:
        _dump(res.to_dict())
        return 0
    if a.csv:
        sys.stdout.write(export.analysis_csv(res))
        return 0
    d = res.document
    print(f"document {d.document_id}: {d.title} (version {d.version_number}, {d.language or '-'}, "
          f"dated {d.doc_date or 'unknown'})")
    for w in res.warnings:
        print(f"warning: {w}", file=sys.stderr)
    for name, r in res.results.items():
        spec = EXTRACTORS[name]
        src = "cache" if r.cached else f"{r.ms:.0f} ms"
        print(f"\n== {spec.label} ({r.total}{' — truncated' if r.truncated else ''}; {src})")
        if not r.items:
            print("   (none found)")
        for i in r.items:
            cols = "  ".join(f"{f}={_cell(i.fields.get(f), 30)}" for f in spec.fields
                             if i.fields.get(f) not in (None, "", [], {}))
            where = f"{_cell(i.section, 40)}" + (f", p. {i.page}" if i.page else "")
            print(f" - [{where}] {_cell(i.text, 110)}")
            if cols:
                print(f"   {cols}  (confidence {i.confidence:.2f}: {', '.join(i.signals)})")
    return 0


def cmd_summarize(a) -> int:
    from backend.analysis.summaries import summarize_document, summarize_section

    rs = _rs()
    scope = _scope(a, rs)
    if a.section:
        s = summarize_section(rs, a.doc, a.section, version=a.version, length=a.length, llm=a.llm,
                              scope=scope)
    else:
        s = summarize_document(rs, a.doc, version=a.version, length=a.length, llm=a.llm,
                               scope=scope)
    if a.json:
        _dump(s.to_dict())
        return 0
    for w in s.warnings:
        print(f"warning: {w}", file=sys.stderr)
    print(f"{s.document.title} — {s.scope} ({s.length}, {s.method}, {s.parts} part(s)"
          f"{', cached' if s.cached else ''})\n")
    for n, x in enumerate(s.sentences, 1):
        print(f"{x.text} [{n}]")
    print()
    for n, x in enumerate(s.sentences, 1):
        print(f"[{n}] {x.section}" + (f", p. {x.page}" if x.page else "")
              + (f", chars {x.start}-{x.end}" if x.start is not None else ""))
    return 0


def cmd_compare(a) -> int:
    from backend.analysis import export
    from backend.analysis.compare import compare_documents, compare_versions

    rs = _rs()
    scope = _scope(a, rs)
    if a.doc_b is not None and a.version is not None:
        from backend.errors import ConfigError

        raise ConfigError("give either a second document or --version, not both")
    if a.doc_b is None:
        c = compare_versions(rs, a.doc, version_b=a.version, version_a=a.against, scope=scope)
        if a.json:
            _dump(export.version_comparison_dict(c))
            return 0
        print(f"{c.document_b.title}: version {c.document_a.version_number} -> "
              f"{c.document_b.version_number}: " + ", ".join(f"{n} {k}" for k, n in c.counts().items()))
        for s in c.sections:
            if s.status == "unchanged":
                continue
            print(f"\n{s.status.upper():<9} {s.heading}")
            for op in s.ops:
                if op.op != "equal":
                    print(f"   {op.op:<7} - {_cell(op.a, 60)!s:<60}  + {_cell(op.b, 60)}")
        if c.items:
            print("\nchanged items:")
        for ch in c.items:
            x = ch.b or ch.a
            print(f" {ch.status:<8} {ch.extractor:<16} [{_cell(ch.section, 30)}] {_cell(x.text, 90)}")
        return 0
    c = compare_documents(rs, a.doc, a.doc_b, scope=scope)
    if a.json:
        _dump(export.document_comparison_dict(c))
        return 0
    print(f"A: {c.document_a.title}\nB: {c.document_b.title}\n")
    print(f"shared topics ({c.topic_similarity:.0%} overlap): {', '.join(c.shared_topics) or '-'}")
    print(f"only in A: {', '.join(c.topics_only_a[:15]) or '-'}")
    print(f"only in B: {', '.join(c.topics_only_b[:15]) or '-'}")
    for name, o in c.overlaps.items():
        print(f"\n{name}: {len(o.shared)} shared, {len(o.only_a)} only in A, {len(o.only_b)} only in B")
        for x, y in o.shared:
            print(f"  = {_cell(x.text, 70)}  <->  {_cell(y.text, 70)}")
    return 0


def cmd_xref(a) -> int:
    from backend.analysis.xref import cross_reference

    rs = _rs()
    x = cross_reference(rs, a.query or None, doc=a.doc, section=a.section, k=a.k,
                        collections=[a.collection] if a.collection else None,
                        scope=_scope(a, rs))
    if a.json:
        from dataclasses import asdict

        _dump({"query": x.query, "origin": x.origin, "trace": x.trace_id,
               "hits": [asdict(h) for h in x.hits]})
        return 0
    print(f"cross-references for {x.origin}: {x.query}")
    for h in x.hits:
        page = f", p. {h.page}" if h.page else ""
        print(f"{h.rank:>3}. {h.title} › {h.section}{page}  (score {h.score:.3f})")
        print(f"     {h.reason}")
    if not x.hits:
        print("no sections of other documents found")
    return 0


def register(sub) -> None:
    x = sub.add_parser("analyze", help="extract decisions, actions, deadlines, ... from a document")
    x.add_argument("doc", help="document id, title or file name")
    x.add_argument("--version", type=int, help="version number (default: the active one)")
    x.add_argument("--what", help="comma-separated extractors (default: all): decisions, "
                   "meeting_actions, deadlines, requirements, config_keys, setup_steps, "
                   "api_surface, operational_notes, risks, entities")
    x.add_argument("--section", help="only this section (id, number, label or path)")
    x.add_argument("--llm", help="LLM refinement: off, ollama, anthropic, openai "
                   "(default: RAGSCOPE_ANALYSIS_LLM)")
    out = x.add_mutually_exclusive_group()
    out.add_argument("--json", action="store_true")
    out.add_argument("--csv", action="store_true", help="one row per item")
    x.set_defaults(fn=cmd_analyze)
    x = sub.add_parser("summarize", help="summary of a document or section with sources")
    x.add_argument("doc")
    x.add_argument("--version", type=int)
    x.add_argument("--section", help="section id, number, label or path")
    x.add_argument("--length", default="medium", choices=["short", "medium", "long"])
    x.add_argument("--llm", help="off, ollama, anthropic, openai (default: RAGSCOPE_ANALYSIS_LLM)")
    x.add_argument("--json", action="store_true")
    x.set_defaults(fn=cmd_summarize)
    x = sub.add_parser("compare", help="compare two documents, or two versions of one")
    x.add_argument("doc")
    x.add_argument("doc_b", nargs="?", help="second document (omit to compare versions)")
    x.add_argument("--version", type=int, help="version of DOC to look at (default: active)")
    x.add_argument("--against", type=int, help="version to compare it with (default: previous)")
    x.add_argument("--json", action="store_true")
    x.set_defaults(fn=cmd_compare)
    x = sub.add_parser("xref", help="sections of other documents on the same topic")
    x.add_argument("query", nargs="?", default="", help="topic (or use --doc/--section)")
    x.add_argument("--doc", help="document whose section is the topic")
    x.add_argument("--section", help="the section of --doc")
    x.add_argument("--k", type=int, default=10)
    x.add_argument("--collection", "-c")
    x.add_argument("--json", action="store_true")
    x.set_defaults(fn=cmd_xref)
