"""`python -m backend search`: hybrid search with per-stage scores, run by a ragscope API
process on this data dir when one runs (backend/cli/bridge.py), else in this process."""
from __future__ import annotations

import json
import sys

from backend.cli import common
from backend.security.display import safe_text


def cmd_search(a) -> int:
    from backend.bridge import calls
    from backend.cli import bridge as cli_bridge

    link = cli_bridge.link_for(a)
    res = link.search(a) if link else calls.search_result(common._rs(), a)
    if a.json:
        print(json.dumps(res, ensure_ascii=False, indent=2, default=str))
        return 0
    for w in res["warnings"]:
        print(f"warning: {w}", file=sys.stderr)
    if res["mode"] == "inventory":
        stages = res["trace"]["stages"]
        topic = (stages[0].get("params") or {}).get("inventory_topic") if stages else None
        print(f"documents for: {topic or '(all)'}")
        for d in res["documents"]:
            print(f"{d['rank']:>3}. {safe_text(d['title'])}  ({safe_text(d['filename'])}, "
                  f"{d['doc_type']}, "
                  f"score {d['score']:.3f})")
        return 0

    def f(x, r):
        return "-" if x is None else f"{x:.3f}#{r}"

    print(f"{'#':>3} {'final':>7} {'vector':>11} {'bm25':>11} {'fused':>11} "
          f"{'rerank':>7}  document › section (page)")
    for h in res["hits"]:
        page = f" (p. {h['page']})" if h.get("page") else ""
        rr = "-" if h.get("rerank_score") is None else f"{h['rerank_score']:.3f}"
        print(f"{h['rank']:>3} {h['score']:>7.3f} {f(h['vector_score'], h['vector_rank']):>11} "
              f"{f(h['keyword_score'], h['keyword_rank']):>11} "
              f"{f(h['fused_score'], h['fused_rank']):>11} "
              f"{rr:>7}  {safe_text(h['document_title'])} › "
              f"{safe_text(h.get('breadcrumb') or '-')}{page}")
        snippet = " ".join(h["text"].split())[:160]
        print(f"{'':>12}{snippet}")
    via = f" (by the running process {link.pid})" if link else ""
    print(f"{len(res['hits'])} hits in {res['trace']['total_ms']:.1f} ms "
          f"(trace {res['trace']['id']}){via}")
    return 0


def register(sub) -> None:
    x = sub.add_parser("search", help="hybrid search with per-stage scores")
    x.add_argument("query")
    x.add_argument("--policy", default="hybrid",
                   choices=["hybrid", "semantic_only", "lexical_only", "document_first",
                            "section_first"])
    x.add_argument("--k", type=int, default=10)
    x.add_argument("--collection", "-c")
    x.add_argument("--tag", "-t", action="append",
                   help="only documents with this tag (repeat: any of them)")
    x.add_argument("--category", action="append",
                   help="only documents whose type is in this registry category (repeat)")
    x.add_argument("--fusion", choices=["rrf", "weighted"])
    x.add_argument("--expand", default="none", choices=["none", "neighbours", "section"])
    x.add_argument("--save-trace", action="store_true",
                   help="persist the trace (owner system:cli, visible to admins; with "
                        "--as: the user's)")
    x.add_argument("--json", action="store_true", help="print the whole result as JSON")
    x.add_argument("--local", action="store_true",
                   help="search in this process even when a ragscope API process runs on "
                        "this data dir (by default it is asked: no model load)")
    x.set_defaults(fn=cmd_search)
