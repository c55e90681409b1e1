"""`python -m backend search-node start|stop|status`: a local OpenSearch node for
RAGSCOPE_KEYWORD_BACKEND=opensearch (backend/index/search_node, docs/elasticsearch.md)."""
from __future__ import annotations

import argparse
import dataclasses
import json

from backend.config import Settings


def cmd_search_node(a) -> int:
    from backend.index.search_node import SearchNode

    node = SearchNode(Settings(), port=a.port, engine=a.engine)
    if a.action == "start":
        st = node.start(heap=a.heap, timeout=a.timeout)
    elif a.action == "stop":
        was = node.stop()
        st = node.status()
        if not a.json:
            print(f"stopped the search node on 127.0.0.1:{a.port}" if was
                  else f"no search node of ours on 127.0.0.1:{a.port}")
            if st.running:  # something else answers there
                print(st.line())
            return 0
    else:
        st = node.status()
    if a.json:
        print(json.dumps(dataclasses.asdict(st)))
    else:
        print(st.line())
        if a.action == "start":
            print(f"use it: RAGSCOPE_KEYWORD_BACKEND=opensearch RAGSCOPE_OPENSEARCH_URL={st.url}")
    return 0 if (st.running or a.action == "stop") else 1


def register(subparsers: argparse._SubParsersAction) -> None:
    x = subparsers.add_parser(
        "search-node", help="start/stop a local OpenSearch node on 127.0.0.1 for the keyword index")
    x.add_argument("action", choices=("start", "stop", "status"))
    x.add_argument("--port", type=int, default=9200, help="HTTP port (transport: port + 100)")
    x.add_argument("--engine", choices=("opensearch", "elasticsearch"), default="opensearch",
                   help="elasticsearch cannot be assembled from Maven Central (the error says why)")
    x.add_argument("--heap", default="512m", help="JVM heap (-Xms/-Xmx), e.g. 512m, 1g")
    x.add_argument("--timeout", type=float, default=120.0,
                   help="seconds to wait for the node to become healthy")
    x.add_argument("--json", action="store_true", help="print the status as JSON")
    x.set_defaults(fn=cmd_search_node)
